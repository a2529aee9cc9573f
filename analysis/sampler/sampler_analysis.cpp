// The sampling monitor as a registry row: plans markers for one function, samples the run with
// shadow markers, reconstructs every interval between samples and checks it against what ran.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/sampler/code_graph.h"
#include "analysis/sampler/firmware_sample_monitor.h"
#include "analysis/sampler/marker_planner.h"
#include "analysis/sampler/path_reconstruction.h"
#include "analysis/sampler/sampler_campaign.h"
#include "analysis/sampler/sampling_monitor.h"
#include "config/json_text.h"
#include "decode/elf_image.h"
#include "decode/in_tree_setup.h"
#include "decode/program.h"
#include "emutrace/analysis.h"
#include "emutrace/config_error.h"
#include "trace/background_sink.h"

namespace emutrace::analysis {
namespace sampler {
namespace {

struct SamplerConfig {
    std::string function, scheme = "bitvec+";
    unsigned steps = 50;
    std::uint64_t period = 0;  ///< 0: the plan's Δt - 1
    std::uint64_t jitter = 0, seed = 1;
    std::uint64_t sample_cycles = 40, trace_cycles = 12;
    std::string cpu;  ///< empty: the run's core
    bool stretch = true;
    bool firmware = false;  ///< markers: firmware: the firmware samples itself with real marker variables
    FirmwareSampling sampling;
};

// `function` is the section's unless the command line names one (run --sampler F), which wins.
SamplerConfig parse(const config::Node& n, const std::string& function) {
    SamplerConfig c;
    c.function = function;
    n.allow_only({"function", "scheme", "steps", "period", "jitter", "seed", "sample_cycles", "trace_cycles", "cpu", "exact_durations", "markers",
                  "sample_id", "sample_exception", "sample_overhead", "check"});
    if (!n.defined()) return c;
    if (c.function.empty()) {
        n.require({"function"});
        c.function = n["function"].str();
    }
    if (n.has("scheme")) {
        c.scheme = n["scheme"].str();
        if (!make_scheme(c.scheme)) n["scheme"].fail("unknown scheme (known: " + scheme_names() + ")");
    }
    if (n.has("steps")) {
        c.steps = n["steps"].u32();
        if (c.steps > 64) n["steps"].fail("at most 64 steps");
    }
    if (n.has("period")) c.period = n["period"].integer();
    if (n.has("jitter")) c.jitter = n["jitter"].integer();
    if (n.has("seed")) c.seed = n["seed"].integer();
    if (n.has("sample_cycles")) c.sample_cycles = n["sample_cycles"].integer();
    if (n.has("trace_cycles")) c.trace_cycles = n["trace_cycles"].integer();
    if (n.has("cpu")) {
        c.cpu = n["cpu"].str();
        if (!models::find_core(c.cpu)) n["cpu"].fail("unknown core (known: " + models::core_names() + ")");
    }
    if (n.has("exact_durations")) c.stretch = !n["exact_durations"].boolean();
    if (n.has("markers")) {
        const std::string where = n["markers"].str();
        if (where != "shadow" && where != "firmware")
            n["markers"].fail("markers are 'shadow' (kept by the monitor) or 'firmware' (the firmware's own)");
        c.firmware = where == "firmware";
    }
    for (const char* key : {"scheme", "steps", "period", "jitter", "seed", "exact_durations"})
        if (c.firmware && n.has(key)) n[key].fail(std::string(key) + " is the firmware's own with markers: firmware");
    for (const char* key : {"sample_id", "sample_exception", "sample_overhead"})
        if (!c.firmware && n.has(key)) n[key].fail(std::string(key) + " only applies with markers: firmware");
    if (n.has("sample_id")) c.sampling.sample_id = n["sample_id"].u32();
    if (n.has("sample_exception")) c.sampling.exception = n["sample_exception"].u32();
    if (n.has("sample_overhead")) c.sampling.overhead = n["sample_overhead"].integer();
    if (n.has("check")) {
        c.sampling.check = n["check"].boolean();
        if (!c.firmware && !c.sampling.check) n["check"].fail("check: false needs markers: firmware (shadow markers come from the run's blocks)");
    }
    return c;
}

class SamplerAnalysis final : public Analysis {
    static constexpr SearchLimits kLimits{100'000, 20'000'000, true};

public:
    SamplerAnalysis(SamplerConfig config, const decode::ElfImage& image, const decode::Program& program) : config_(std::move(config)) {
        graph_ = code_graph(image, program, config_.function, models::find_core(config_.cpu)->kind);
        SearchLimits limits = kLimits;
        limits.stretch = config_.stretch;
        if (config_.firmware) {
            // The plan is whatever the running binary's records say, wherever the compiler put it.
            recorded_ = plan_from_records(image, graph_, config_.function);
            plan_ = recorded_.plan;
            SearchOutcome found = find_intersecting_pair(graph_, plan_, limits);
            delta_t_ = found.pair ? found.pair->delta_t : limits.max_delta_t + 1;
            unlimited_ = !found.pair;
            stopped_ = "the firmware's records";
            config_.scheme = "firmware (" + std::to_string(recorded_.records) + " recorded operations)";
            firmware_monitor_ = std::make_unique<FirmwareSampleMonitor>(graph_, recorded_, config_.sampling, config_.stretch);
            background_ = std::make_unique<trace::BackgroundSink>(*firmware_monitor_);
            return;
        }
        auto scheme = make_scheme(config_.scheme);
        MarkerPlanResult r = plan_markers(graph_, *scheme, config_.steps, limits);
        plan_ = r.plan;
        delta_t_ = r.achieved();
        unlimited_ = r.unlimited;
        stopped_ = r.stopped;
        steps_ = r.steps.size();
        period_ = config_.period ? config_.period : std::max<std::uint64_t>(1, delta_t_ - 1);
        monitor_ = std::make_unique<SamplingMonitor>(graph_, plan_, period_, config_.jitter, config_.seed, config_.stretch);
        background_ = std::make_unique<trace::BackgroundSink>(*monitor_);
    }
    // The monitor and its checks run on a thread of their own, overlapping the emulation.
    std::vector<trace::TraceSink*> sinks() override { return {background_.get()}; }
    // The firmware monitor needs the function's blocks as the emulator's stream: its samples land
    // between the emulator's blocks. The shadow monitor splits the emulator's blocks itself.
    std::vector<std::uint32_t> trace_points() const override {
        std::vector<std::uint32_t> out;
        if (firmware_monitor_ && config_.sampling.check)
            for (const auto& v : graph_.vertices) out.push_back(v.address);
        return out;
    }
    std::string summary() const override {
        const MonitorCounts& c = counts();
        char line[512];
        std::string s = "sampler: " + config_.function + " (" + std::to_string(graph_.vertices.size()) + " blocks), scheme " + config_.scheme;
        std::snprintf(line, sizeof line, ", Δt %llu, sampling every %s%llu cycles; %zu bytes of markers in %zu blocks\n",
                      static_cast<unsigned long long>(delta_t_), firmware_monitor_ ? "~" : "", static_cast<unsigned long long>(period()),
                      plan_.bytes(), plan_.instrumented_vertices());
        s += line;
        if (config_.sampling.check)
            std::snprintf(line, sizeof line,
                          "  %zu samples; %llu intervals inside the function: %llu reconstructed correctly (%.1f%%), %llu ambiguous, %llu wrong, "
                          "%llu impossible; %llu with calls, interrupts or other code left out\n",
                          c.samples, static_cast<unsigned long long>(c.checked), static_cast<unsigned long long>(c.correct),
                          c.checked ? 100.0 * static_cast<double>(c.correct) / static_cast<double>(c.checked) : 0.0,
                          static_cast<unsigned long long>(c.ambiguous), static_cast<unsigned long long>(c.wrong),
                          static_cast<unsigned long long>(c.impossible), static_cast<unsigned long long>(c.left_out));
        else  // the field monitor: samples only, nothing to compare with
            std::snprintf(line, sizeof line,
                          "  %zu samples; %llu intervals with both samples in the function: %llu reconstructed to one path (%.1f%%), "
                          "%llu ambiguous, %llu with no path; not checked against the run (check: false)\n",
                          c.samples, static_cast<unsigned long long>(c.checked), static_cast<unsigned long long>(c.unique),
                          c.checked ? 100.0 * static_cast<double>(c.unique) / static_cast<double>(c.checked) : 0.0,
                          static_cast<unsigned long long>(c.ambiguous), static_cast<unsigned long long>(c.impossible));
        s += line;
        if (c.inside_marker_op) {
            std::snprintf(line, sizeof line, "  (%llu of those left out have a sample inside a block before its marker operations ended)\n",
                          static_cast<unsigned long long>(c.inside_marker_op));
            s += line;
        }
        std::snprintf(line, sizeof line, "  monitoring cost on target: %llu cycles (samples x %llu + markers %llu), a trace of every block %llu\n",
                      static_cast<unsigned long long>(sampling_cost()), static_cast<unsigned long long>(config_.sample_cycles),
                      static_cast<unsigned long long>(c.marker_cycles), static_cast<unsigned long long>(trace_cost()));
        s += line;
        // A monitor that checked nothing has shown nothing: said where it cannot be missed.
        if (!c.checked) s += "  WARNING: no interval of " + config_.function + " was checked: " + why_nothing_checked() + "\n";
        return s;
    }
    std::string json() const override {
        const MonitorCounts& c = counts();
        nlohmann::json plan = nlohmann::json::array();
        for (std::uint32_t v = 0; v < graph_.vertices.size(); ++v) {
            if (plan_.ops[v].empty()) continue;
            nlohmann::json ops = nlohmann::json::array();
            for (const auto& op : plan_.ops[v]) ops.push_back(op.text());
            plan.push_back({{"block", graph_.vertices[v].address}, {"ops", ops}});
        }
        return config::json_text(nlohmann::json{{"function", config_.function},
                                                {"scheme", config_.scheme},
                                                {"delta_t", delta_t_},
                                                {"period", period()},
                                                {"markers", firmware_monitor_ ? "firmware" : "shadow"},
                                                {"steps", steps_},
                                                {"stopped", stopped_},
                                                {"plan", plan},
                                                {"marker_bytes", plan_.bytes()},
                                                {"samples", c.samples},
                                                {"intervals_checked", c.checked},
                                                {"correct", c.correct},
                                                {"unique_unchecked", c.unique},
                                                {"ambiguous", c.ambiguous},
                                                {"wrong", c.wrong},
                                                {"impossible", c.impossible},
                                                {"left_out", c.left_out},
                                                {"inside_marker_op", c.inside_marker_op},
                                                {"unchecked_because", c.checked ? std::string() : why_nothing_checked()},
                                                {"sampling_cost_cycles", sampling_cost()},
                                                {"trace_cost_cycles", trace_cost()}});
    }
    // One JUnit case: every interval checked was reconstructed to what ran. None when nothing was
    // checked: that is no pass (the summary says why).
    std::vector<TestCase> test_cases() const override {
        if (!counts().checked) return {};
        TestCase t{"emutrace.sampler", "sampled paths of " + config_.function + (config_.sampling.check ? " reconstructed" : " observed")};
        for (const auto& f : failures()) t.failure += (t.failure.empty() ? "" : "; ") + f;
        return {t};
    }
    std::vector<std::string> failures() const override {
        const MonitorCounts& c = counts();
        // Without the check an interval with no path is as likely a call in between as a broken plan.
        if (!config_.sampling.check || (!c.wrong && !c.impossible)) return {};
        return {"sampler: " + std::to_string(c.wrong + c.impossible) + " intervals of " + config_.function +
                " reconstructed wrongly: the marker plan does not hold at this period"};
    }

private:
    std::string why_nothing_checked() const {
        const MonitorCounts& c = counts();
        const std::string period_text = "the sampling period (" + std::to_string(period()) + " cycles)";
        if (!c.samples)
            return "no sample fell in it: the run never reached it, or " + period_text + " is longer than the run's calls of it; set period:";
        if (c.left_out)
            return "all " + std::to_string(c.left_out) +
                   " intervals held a call, an interrupt or other code (a soft-float or library call in every path?); monitor the callee "
                   "instead";
        if (unlimited_ && !config_.period)
            return "its paths are too alike to be told apart within " + std::to_string(kLimits.max_delta_t) +
                   " cycles (Δt), so samples are too far apart to land twice in one call; add markers (scheme:) or set period:";
        return "no two samples landed in one call of it: " + period_text + " is longer than its calls; set period:";
    }
    const MonitorCounts& counts() const { return firmware_monitor_ ? firmware_monitor_->counts() : monitor_->counts(); }
    // With markers: firmware, the firmware's timer decides: the mean of the cycles it measured.
    std::uint64_t period() const { return firmware_monitor_ ? static_cast<std::uint64_t>(firmware_monitor_->mean_elapsed() + 0.5) : period_; }
    std::uint64_t sampling_cost() const { return counts().samples * config_.sample_cycles + counts().marker_cycles; }
    // A full trace records every block of the run, as a software tracer or a PTM's waypoints would.
    std::uint64_t trace_cost() const { return counts().blocks_run * config_.trace_cycles; }

    SamplerConfig config_;
    SamplingGraph graph_;
    MarkerPlan plan_;
    std::uint64_t delta_t_ = 0, period_ = 0;
    bool unlimited_ = false;  ///< no two paths agree below the search limit: Δt is at least that
    std::size_t steps_ = 0;
    std::string stopped_;
    RecordedPlan recorded_;
    std::unique_ptr<SamplingMonitor> monitor_;
    std::unique_ptr<FirmwareSampleMonitor> firmware_monitor_;
    std::unique_ptr<trace::BackgroundSink> background_;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    const auto flag = setup.flag("sampler");
    if (flag && flag->empty()) throw ConfigError("--sampler: name the function to monitor");
    SamplerConfig c = parse(setup.section("sampler"), flag ? *flag : std::string());
    if (c.function.empty()) return nullptr;
    if (!setup.emulated()) throw ConfigError("the sampler samples an emulated run; a capture has no time between its branches");
    if (c.cpu.empty()) c.cpu = setup.core();
    return std::make_unique<SamplerAnalysis>(std::move(c), in_tree(setup).image(), in_tree(setup).program());
}

}  // namespace
}  // namespace sampler

AnalysisType sampler_analysis() {
    AnalysisType t{"sampler",
                   "sampling monitor with markers (LCTES 2011): plans markers for a function, samples the run every Δt - 1 cycles with shadow "
                   "markers, and checks every reconstructed path against the block stream",
                   {"sampler"},
                   {},
                   {{"sampler", "FUNCTION", "Monitor this function by sampling with markers (scheme and period from the sampler: section)"}},
                   trace::WantBlocks | trace::WantExceptions,
                   &sampler::create};
    t.campaign = sampler_campaign();
    return t;
}

}  // namespace emutrace::analysis
