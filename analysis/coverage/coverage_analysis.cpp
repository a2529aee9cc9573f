// Coverage as an analysis (--coverage): which functions and basic blocks of the firmware a run
// executed. Its JSON lists them, so that a campaign merges its cases' coverage as a union.
#include <cstdio>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/coverage/block_coverage.h"
#include "analysis/coverage/coverage_campaign.h"
#include "config/json_text.h"
#include "decode/in_tree_setup.h"
#include "emutrace/analysis.h"

namespace emutrace::analysis {
namespace {

class CoverageAnalysis final : public Analysis {
public:
    explicit CoverageAnalysis(const AnalysisSetup& setup) : setup_(setup) {}
    std::vector<trace::TraceSink*> sinks() override { return {&coverage_}; }
    void finish(const SourceTotals&) override { figures_ = coverage_.figures(in_tree(setup_).program()); }
    std::string summary() const override {
        char line[160];
        std::snprintf(line, sizeof line, "  coverage      %zu of %zu functions (%.1f%%), %zu of %zu basic blocks (%.1f%%)\n",
                      figures_.functions_executed.size(), figures_.functions_defined.size(),
                      percent(figures_.functions_executed.size(), figures_.functions_defined.size()), figures_.blocks_executed.size(),
                      figures_.blocks_defined, percent(figures_.blocks_executed.size(), figures_.blocks_defined));
        return line;
    }
    std::string json() const override {
        std::error_code ignored;  // one firmware, one name, however the run spelt its path
        const std::string firmware = std::filesystem::weakly_canonical(setup_.firmware(), ignored).string();
        return config::json_text(nlohmann::json{{"firmware", firmware.empty() ? setup_.firmware() : firmware},
                                                {"functions_defined", figures_.functions_defined},
                                                {"functions_executed", figures_.functions_executed},
                                                {"blocks_defined", figures_.blocks_defined},
                                                {"blocks_executed", figures_.blocks_executed}});
    }

private:
    static double percent(std::size_t part, std::size_t whole) {
        return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
    }
    const AnalysisSetup& setup_;
    BlockCoverage coverage_;
    CoverageFigures figures_;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    if (!setup.flag("coverage")) return nullptr;
    return std::make_unique<CoverageAnalysis>(setup);
}

}  // namespace

AnalysisType coverage_analysis() {
    AnalysisType t{
        "coverage", "which functions and basic blocks of the firmware the run executed (a campaign merges them over its cases)", {},
        {},         {{"coverage", "", "Report which functions and basic blocks ran (JSON coverage; merged by a campaign)"}},     trace::WantBlocks,
        &create};
    t.campaign = coverage_campaign();
    return t;
}

}  // namespace emutrace::analysis
