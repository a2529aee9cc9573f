// The ETMv3 writer as an analysis: --etm FILE and --etm-snapshot DIR.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/writers/etm_writer.h"
#include "analysis/writers/trace_unit_options.h"
#include "config/json_text.h"
#include "decode/in_tree_setup.h"
#include "emutrace/analysis.h"
#include "emutrace/config.h"
#include "trace/background_sink.h"

namespace emutrace::analysis {
namespace {

class EtmAnalysis final : public Analysis {
public:
    EtmAnalysis(EtmOutput output, const decode::ElfImage& image) : writer_(output, image), output_(std::move(output)) {}
    // The encoder runs on a thread of its own, overlapping the source.
    std::vector<trace::TraceSink*> sinks() override { return {&background_}; }
    void finish(const SourceTotals& totals) override { instructions_ = totals.instructions; }
    std::string summary() const override {
        const decode::EtmStats& s = writer_.stats();
        char line[512];
        std::snprintf(
            line, sizeof line, "ETMv3 trace: %llu bytes (%.2f bits/instruction), %llu atoms, %llu branch addresses, %llu exceptions%s%s%s%s%s\n",
            static_cast<unsigned long long>(s.bytes), instructions_ ? 8.0 * static_cast<double>(s.bytes) / static_cast<double>(instructions_) : 0.0,
            static_cast<unsigned long long>(s.atoms), static_cast<unsigned long long>(s.branch_addresses),
            static_cast<unsigned long long>(s.exceptions), output_.options.cycle_accurate ? ", cycle-accurate" : "",
            output_.file.empty() ? "" : " -> ", output_.file.c_str(), output_.snapshot.empty() ? "" : ", snapshot ", output_.snapshot.c_str());
        return line;
    }
    std::string json() const override {
        const decode::EtmStats& s = writer_.stats();
        return config::json_text(nlohmann::json{{"bytes", s.bytes},
                                                {"atoms", s.atoms},
                                                {"branch_addresses", s.branch_addresses},
                                                {"exceptions", s.exceptions},
                                                {"exception_returns", s.exception_returns},
                                                {"syncs", s.syncs},
                                                {"cycle_accurate", output_.options.cycle_accurate},
                                                {"cycles", s.cycles},
                                                {"trace_id", output_.options.trace_id}});
    }

private:
    EtmWriter writer_;
    trace::BackgroundSink background_{writer_};
    EtmOutput output_;
    std::uint64_t instructions_ = 0;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    EtmOutput out{setup.output("etm"), setup.output("etm_snapshot"), parse_trace_unit_options(setup.section("etm"), decode::EtmOptions{})};
    if (out.file.empty() && out.snapshot.empty()) return nullptr;
    if (!setup.emulated()) throw ConfigError("--etm and --etm-snapshot encode an emulated run");
    if (setup.core() == "cortex-m0") throw ConfigError("--etm: the Cortex-M0 has no ETM (run a Cortex-M3 or M4)");
    return std::make_unique<EtmAnalysis>(std::move(out), in_tree(setup).image());
}

}  // namespace

AnalysisType etm_analysis() {
    return {"etm",
            "the ETMv3.4 instruction trace of a Cortex-M3/M4 ETM (an atom per instruction, branch addresses, exceptions; cycle-accurate "
            "with etm: {cycle_accurate: true}), raw or as an OpenCSD snapshot",
            {"etm"},
            {{"etm", "FILE", "Write the run as ETMv3.4 instruction trace (raw, unformatted)"},
             {"etm_snapshot", "DIR", "Write the ETMv3 trace as an OpenCSD/DS-5 snapshot directory (trc_pkt_lister -ss_dir DIR reads it)"}},
            {},
            trace::WantBlocks | trace::WantExceptions,
            &create};
}

}  // namespace emutrace::analysis
