// The loop-context WCET analysis as a registry row (docs/wcet.md): measures the run, bounds the
// scenario's function with IPET, and fails the run when the bound is untrusted or over its limit.
#include "analysis/wcet/wcet_campaign.h"
#include "decode/in_tree_setup.h"
#include "emutrace/analysis.h"

#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "analysis/wcet/flow_facts.h"
#include "analysis/wcet/wcet_config.h"
#include "analysis/wcet/wcet_report.h"
#include "analysis/wcet/wcet_session.h"
#include "config/json_text.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::wcet {
namespace {

class WcetAnalysis final : public Analysis {
public:
    WcetAnalysis(WcetConfig config, const decode::ElfImage& image, std::uint64_t clock_hz, bool emulated, std::string stats_out)
        : config_(std::move(config)), session_(image, config_.call_context), clock_hz_(clock_hz), emulated_(emulated),
          stats_out_(std::move(stats_out)) {
        if (!session_.program().function(config_.function))
            throw ConfigError(image.path() + ": no function named '" + config_.function + "' with a size in the symbol table (see emutrace cfg)");
        session_.profile(config_.function);
        if (!config_.flow_facts_file.empty()) {
            std::vector<FlowFact> more = read_flow_facts(config_.flow_facts_file);
            config_.flow_facts.insert(config_.flow_facts.begin(), more.begin(), more.end());
        }
    }
    std::vector<trace::TraceSink*> sinks() override { return session_.sinks(); }
    std::vector<std::uint32_t> trace_points() const override { return emulated_ ? session_.trace_points() : std::vector<std::uint32_t>{}; }
    void finish(const SourceTotals&) override {
        StatisticsTable stats = session_.statistics({}, true);
        // Saved before the bound, which may throw: a campaign bounds all runs' statistics together.
        if (!stats_out_.empty()) stats.save(stats_out_);
        bound_ = session_.bound(stats, query());
    }
    std::string summary() const override { return bound_ ? format_wcet(*bound_, clock_hz_) : ""; }
    std::string json() const override {
        if (!bound_) return "";
        nlohmann::json j = wcet_json(*bound_, clock_hz_);
        if (config_.max_cycles) j["max_cycles"] = config_.max_cycles;
        return config::json_text(j);
    }
    std::vector<std::string> failures() const override { return bound_ ? wcet_failures(*bound_, config_.max_cycles) : std::vector<std::string>{}; }
    // One JUnit case: the bound is trusted (and within max_cycles, when given).
    std::vector<TestCase> test_cases() const override {
        if (!bound_) return {};
        TestCase t{"emutrace.wcet",
                   "WCET of " + config_.function + (config_.max_cycles ? " within " + std::to_string(config_.max_cycles) + " cycles" : " trusted")};
        t.seconds = clock_hz_ ? static_cast<double>(bound_->bound_cycles) / static_cast<double>(clock_hz_) : 0;
        for (const auto& f : failures()) t.failure += (t.failure.empty() ? "" : "; ") + f;
        return {t};
    }
    std::string report_html() const override { return bound_ ? wcet_report_html(session_.program(), *bound_, clock_hz_, config_.max_cycles) : ""; }
    /// The bound from the runs of the function measured so far.
    std::string checkpoint() override { return config::json_text(wcet_json(session_.bound_so_far(query()), clock_hz_)); }

private:
    WcetQuery query() const { return {config_.function, config_.flow_facts, {}, config_.call_context, config_.path_counts}; }
    WcetConfig config_;
    WcetSession session_;
    std::uint64_t clock_hz_;
    bool emulated_;
    std::string stats_out_;  ///< --wcet-stats: this run's loop-context statistics, for wcet --stats-in
    std::optional<WcetResult> bound_;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    WcetConfig config = parse_wcet_config(setup.section("wcet"));
    if (auto f = setup.flag("wcet")) {
        if (f->empty()) throw ConfigError("--wcet: name the function to bound");
        config.function = *f;
        config.enabled = true;
    }
    if (!config.enabled) return nullptr;
    return std::make_unique<WcetAnalysis>(std::move(config), in_tree(setup).image(), setup.clock_hz(), setup.emulated(), setup.output("wcet_stats"));
}

}  // namespace
}  // namespace emutrace::analysis::wcet

namespace emutrace::analysis {

AnalysisType wcet_analysis() {
    AnalysisType t{"wcet",
                   "loop-context WCET bound of one function by IPET (GLPK), cross-checked against the call tracer; exit 1 when untrusted or "
                   "above max_cycles",
                   {"wcet"},
                   {{"wcet_stats", "FILE", "Write the run's loop-context statistics (for 'wcet --stats-in': one bound over many runs)"}},
                   {{"wcet", "FUNCTION", "Bound this function's WCET from the run (overrides the scenario's wcet.function)"}},
                   trace::WantBlocks | trace::WantBranches | trace::WantExceptions,
                   &wcet::create};
    t.campaign = wcet_campaign();
    return t;
}

}  // namespace emutrace::analysis
