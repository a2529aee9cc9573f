// The PFT writer as an analysis: `pft:` options, --pft FILE and --snapshot DIR.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/writers/pft_writer.h"
#include "analysis/writers/trace_unit_options.h"
#include "config/json_text.h"
#include "decode/elf_image.h"
#include "decode/in_tree_setup.h"
#include "emutrace/analysis.h"
#include "emutrace/config.h"
#include "trace/background_sink.h"

namespace emutrace::analysis {
namespace {

class PftAnalysis final : public Analysis {
public:
    PftAnalysis(PftOutput output, const decode::ElfImage& image) : writer_(output, image), output_(std::move(output)) {}
    // The encoder runs on a thread of its own, overlapping the source.
    std::vector<trace::TraceSink*> sinks() override { return {&background_}; }
    void finish(const SourceTotals& totals) override { instructions_ = totals.instructions; }
    std::string summary() const override {
        const decode::PftStats& p = writer_.stats();
        char line[512];
        std::snprintf(
            line, sizeof line, "PFT trace: %llu bytes (%.2f bits/instruction), %llu atoms, %llu branch addresses, %llu exceptions%s%s%s%s\n",
            static_cast<unsigned long long>(p.bytes), instructions_ ? 8.0 * static_cast<double>(p.bytes) / static_cast<double>(instructions_) : 0.0,
            static_cast<unsigned long long>(p.atoms), static_cast<unsigned long long>(p.branch_addresses),
            static_cast<unsigned long long>(p.exceptions), output_.file.empty() ? "" : " -> ", output_.file.c_str(),
            output_.snapshot.empty() ? "" : ", snapshot ", output_.snapshot.c_str());
        return line;
    }
    std::string json() const override {
        const decode::PftStats& p = writer_.stats();
        return config::json_text(nlohmann::json{{"bytes", p.bytes},
                                                {"atoms", p.atoms},
                                                {"branch_addresses", p.branch_addresses},
                                                {"exceptions", p.exceptions},
                                                {"exception_returns", p.exception_returns},
                                                {"waypoint_updates", p.waypoint_updates},
                                                {"syncs", p.syncs},
                                                {"cycle_accurate", output_.options.cycle_accurate},
                                                {"trace_id", output_.options.trace_id}});
    }

private:
    PftWriter writer_;
    trace::BackgroundSink background_{writer_};
    PftOutput output_;
    std::uint64_t instructions_ = 0;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    PftOutput out{setup.output("pft"), setup.output("snapshot"), false, parse_trace_unit_options(setup.section("pft"), decode::PftOptions{})};
    if (out.file.empty() && out.snapshot.empty()) return nullptr;
    if (!setup.emulated()) throw ConfigError("--pft and --snapshot encode an emulated run; a capture is already PFT");
    return std::make_unique<PftAnalysis>(std::move(out), in_tree(setup).image());
}

}  // namespace

AnalysisType pft_analysis() {
    return {"pft",
            "CoreSight PTM/PFT 1.1 byte stream and OpenCSD/DS-5 snapshot of the run, decodable by OpenCSD and DS-5",
            {"pft"},
            {{"pft", "FILE", "Write the CoreSight PTM/PFT 1.1 trace bytes a PTM would produce (decodable with OpenCSD)"},
             {"snapshot", "DIR", "Write an OpenCSD/DS-5 snapshot directory (formatted PFT trace, PTM registers, code dumps)"}},
            {},
            trace::WantBlocks | trace::WantExceptions,
            &create};
}

}  // namespace emutrace::analysis
