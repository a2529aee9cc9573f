// The SWO writer as an analysis: --swo FILE (outputs.swo) writes the ITM/DWT byte stream a probe
// on the emulated core's SWO pin would receive.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/swo/swo_writer.h"
#include "config/json_text.h"
#include "emutrace/analysis.h"
#include "trace/background_sink.h"

namespace emutrace::analysis {
namespace {

class SwoAnalysis final : public Analysis {
public:
    explicit SwoAnalysis(std::string path) : path_(path), writer_(std::move(path)) {}
    // The packets are made on a thread of their own, overlapping the emulation.
    std::vector<trace::TraceSink*> sinks() override { return {&background_}; }
    std::string summary() const override {
        const SwoStats& s = writer_.stats();
        char line[512];
        std::snprintf(line, sizeof line,
                      "SWO trace: %llu bytes (%llu stimulus, %llu exception, %llu PC-sample packets, %llu data traces, %llu timestamps) -> %s\n",
                      static_cast<unsigned long long>(s.bytes), static_cast<unsigned long long>(s.software),
                      static_cast<unsigned long long>(s.exceptions), static_cast<unsigned long long>(s.pc_samples),
                      static_cast<unsigned long long>(s.data_trace), static_cast<unsigned long long>(s.timestamps), path_.c_str());
        std::string out = line;
        if (!s.bytes) out += "  nothing traced: the firmware did not enable the ITM (ITM_LAR, ITM_TCR.ITMENA, ITM_TER)\n";
        if (s.formatter_id) out += "  in TPIU formatter frames, trace ID " + std::to_string(s.formatter_id) + " (TPIU_FFCR.EnFCont was set)\n";
        if (s.lost) {
            std::snprintf(line, sizeof line,
                          "  %llu packets lost where the port could not keep up (%llu overflow packets; %llu core cycles per byte)\n",
                          static_cast<unsigned long long>(s.lost), static_cast<unsigned long long>(s.overflows),
                          static_cast<unsigned long long>(s.port_cycles_per_byte));
            out += line;
        }
        return out;
    }
    std::string json() const override {
        const SwoStats& s = writer_.stats();
        return config::json_text(nlohmann::json{{"file", path_},
                                                {"bytes", s.bytes},
                                                {"stimulus_packets", s.software},
                                                {"exception_packets", s.exceptions},
                                                {"pc_samples", s.pc_samples},
                                                {"data_traces", s.data_trace},
                                                {"timestamps", s.timestamps},
                                                {"syncs", s.syncs},
                                                {"overflows", s.overflows},
                                                {"lost_packets", s.lost},
                                                {"port_cycles_per_byte", s.port_cycles_per_byte},
                                                {"port0_text", s.port0_text},
                                                {"formatter_trace_id", s.formatter_id}});
    }

private:
    std::string path_;
    SwoWriter writer_;
    trace::BackgroundSink background_{writer_};
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    std::string path = setup.output("swo");
    if (path.empty()) return nullptr;
    if (!setup.emulated()) throw ConfigError("--swo writes an emulated run's SWO stream; a capture is read with emutrace decode swo");
    if (setup.core() == "cortex-m0") throw ConfigError("--swo: the Cortex-M0 has no ITM, DWT trace or SWO (run a Cortex-M3 or M4)");
    return std::make_unique<SwoAnalysis>(std::move(path));
}

}  // namespace

AnalysisType swo_analysis() {
    return {"swo",
            "the SWO byte stream a probe would receive: ITM stimulus ports, DWT exception trace, PC samples and data trace, timestamps, at "
            "the TPIU's rate with overflow where the port cannot keep up",
            {},
            {{"swo", "FILE", "Write the SWO byte stream (ITM/DWT packets, TPIU formatter bypassed) as the firmware programmed the ITM"}},
            {},
            trace::WantMmio | trace::WantExceptions | trace::WantSamples | trace::WantDataTrace,
            &create};
}

}  // namespace emutrace::analysis
