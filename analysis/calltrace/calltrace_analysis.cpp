// The call-trace analysis as a registry row: function entry/exit tracer, profile, timing
// constraints with their baseline check, and the Perfetto and compact-trace writers
// (docs/calltrace.md).
#include "analysis/calltrace/calltrace_campaign.h"
#include "decode/in_tree_setup.h"
#include "emutrace/analysis.h"

#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/calltrace/calltrace_config.h"
#include "analysis/calltrace/calltrace_report.h"
#include "analysis/calltrace/compact_trace.h"
#include "analysis/calltrace/profile.h"
#include "analysis/constraints/constraint_checker.h"
#include "analysis/writers/perfetto_writer.h"
#include "config/input_file.h"
#include "config/json_text.h"
#include "decode/elf_image.h"
#include "decode/source_lines.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis {
namespace {

EventSpec resolve(const TraceEventConfig& c, const decode::ElfImage& image) {
    EventSpec s;
    s.text = c.text();
    s.thread = c.thread;
    if (c.kind == "marker") {
        s.kind = EventSpec::Kind::Marker;
        s.value = c.value;
    } else if (c.kind == "exception") {
        s.kind = EventSpec::Kind::Exception;
        s.value = c.value;
    } else {
        s.kind = c.kind == "enter" ? EventSpec::Kind::Enter : EventSpec::Kind::Exit;
        auto at = image.symbols().address_of(c.function);
        if (!at) throw ConfigError(c.where + ": no function '" + c.function + "' in " + image.path());
        s.value = *at;
    }
    return s;
}

std::vector<ConstraintSpec> resolve_all(const CalltraceConfig& config, const decode::ElfImage& image, std::uint64_t clock_hz) {
    std::vector<ConstraintSpec> out;
    for (const auto& c : config.constraints) {
        ConstraintSpec s;
        s.name = c.name;
        s.start = resolve(c.start, image);
        s.end = resolve(c.end, image);
        if (c.deadline) s.deadline = resolve(*c.deadline, image);
        // A time limit is the whole cycles that fit in it: a window of N cycles meets it when N
        // cycles take no longer (the 1e-9 absorbs the decimal time's rounding, 10ms at 25 MHz).
        s.limit_cycles =
            c.limit_cycles ? c.limit_cycles : static_cast<std::uint64_t>(std::floor(c.limit_seconds * static_cast<double>(clock_hz) + 1e-9));
        if (c.limit_seconds > 0 && !s.limit_cycles)  // a limit that rounds to no cycle would never be checked
            throw ConfigError(c.limit_where + ": constraints: '" + c.name + "': limit " + c.limit_text + " is less than one cycle at " +
                              std::to_string(clock_hz) + " Hz; give at least one cycle's time");
        s.by_payload = c.by_payload;
        out.push_back(std::move(s));
    }
    return out;
}

std::string time_text(std::uint64_t cycles, std::uint64_t clock_hz) {
    char buf[32];
    double us = static_cast<double>(cycles) * 1e6 / static_cast<double>(clock_hz);
    if (us >= 1000)
        std::snprintf(buf, sizeof buf, "%.3f ms", us / 1000);
    else
        std::snprintf(buf, sizeof buf, "%.1f us", us);
    return buf;
}

/// Keeps the user events (markers) of a run for the reports.
class UserEventLog final : public CallListener {
public:
    static constexpr std::size_t kMax = 100'000;
    void on_call_event(const CallEvent& e) override {
        if (e.kind != CallEvent::Kind::Marker) return;
        ++counts[e.id];
        if (events.size() < kMax) events.push_back(e);
    }
    std::vector<CallEvent> events;                  ///< the first kMax
    std::map<std::uint32_t, std::uint64_t> counts;  ///< every one, by id
};

/// The files the analysis writes and the baseline it compares with.
struct CalltraceOutputs {
    std::string perfetto, trace;     ///< empty: not written
    bool report = false;             ///< the run writes a --report page: keep call paths and a timeline
    std::string baseline;            ///< an earlier --json result; empty: none
    nlohmann::json baseline_result;  ///< its contents, read before the run
    double regression_threshold = 0.05;
};

class TraceAnalysis final : public Analysis {
public:
    /// Resolves function names and limits against the image; throws ConfigError naming the
    /// scenario line of a name the ELF does not have.
    TraceAnalysis(CalltraceConfig config, CalltraceOutputs outputs, const std::string& scenario_file, const decode::ElfImage& image,
                  std::uint64_t clock_hz);

    std::vector<trace::TraceSink*> sinks() override {
        if (mmio_) return {&tracer_, mmio_.get()};
        return {&tracer_};
    }
    void finish(const SourceTotals& totals) override;
    /// Profile table, phases and constraint table, for the terminal.
    std::string summary() const override;
    std::string json() const override { return config::json_text(to_json()); }
    /// The profile, constraints and user-event counts so far (calls still open are not in it yet).
    std::string checkpoint() override { return config::json_text(to_json(false)); }
    std::vector<TestCase> test_cases() const override;
    std::vector<std::string> failures() const override;
    std::string report_html() const override;

private:
    /// `every_user_event`: the list of user events (up to UserEventLog::kMax), else their counts
    /// by id only (a checkpoint's, whose cost must not grow with the run).
    nlohmann::json to_json(bool every_user_event = true) const;
    /// Constraints whose max or mean duration grew by more than the threshold (0.05 = 5%) over the
    /// same constraint in the baseline (an earlier --json result): {name, measure, baseline, now, change}.
    nlohmann::json regressions(const nlohmann::json& baseline, double threshold) const;
    /// Whether the scenario's include/exclude globs select the function at `address`.
    bool selected(std::uint32_t address) const;
    /// With calltrace.event_budget: leaves the most frequently called small functions out of the
    /// trace outputs until entry/exit events per emulated second fit the budget.
    void apply_event_budget(double emulated_seconds);

    CalltraceConfig config_;
    CalltraceOutputs outputs_;
    const decode::ElfImage& image_;
    decode::SourceLines lines_;  ///< the image's DWARF, opened once for the reports
    std::uint64_t clock_hz_;
    CallTracer tracer_;
    Profile profile_;
    ConstraintChecker checker_;
    UserEventLog user_events_;
    ConstraintMargins margins_{checker_.results()};
    std::unique_ptr<CallPathTree> paths_;     ///< with a report only
    std::unique_ptr<CallTimeline> timeline_;  ///< likewise
    std::unique_ptr<PerfettoWriter> perfetto_;
    std::unique_ptr<MmioLog> mmio_;  ///< with a Perfetto trace or a report: the register accesses
    std::unique_ptr<CompactTraceWriter> compact_;
    std::unordered_map<std::uint32_t, bool> selection_;  ///< cache of selected()
    std::vector<std::string> auto_dropped_;
    std::uint64_t total_cycles_ = 0;
    nlohmann::json regressions_ = nlohmann::json::array();
};

}  // namespace

TraceAnalysis::TraceAnalysis(CalltraceConfig config, CalltraceOutputs outputs, const std::string& scenario_file, const decode::ElfImage& image,
                             std::uint64_t clock_hz)
    : config_(std::move(config)), outputs_(std::move(outputs)), image_(image), lines_(image.path()), clock_hz_(clock_hz), tracer_(image),
      checker_(resolve_all(config_, image, clock_hz), tracer_) {
    for (const auto& p : config_.phases)
        if (!image.symbols().address_of(p))
            throw ConfigError(scenario_file + ": calltrace.phases names '" + p + "', which is not in " + image.path());
    tracer_.add_listener(profile_);
    tracer_.add_listener(checker_);
    tracer_.add_listener(user_events_);
    // Selection of the traced functions: decided once per function, by name.
    for (const auto& f : image.symbols().functions()) {
        bool in = config_.include.empty();
        for (const auto& g : config_.include) in = in || fnmatch(g.c_str(), f.name.c_str(), 0) == 0;
        for (const auto& g : config_.exclude) in = in && fnmatch(g.c_str(), f.name.c_str(), 0) != 0;
        selection_[f.address] = in;
    }
    auto is_selected = [this](std::uint32_t address) { return selected(address); };
    if (!outputs_.perfetto.empty()) {
        perfetto_ = std::make_unique<PerfettoWriter>(tracer_, clock_hz, is_selected);
        tracer_.add_listener(*perfetto_);
        mmio_ = std::make_unique<MmioLog>(true);
        perfetto_->add_mmio(*mmio_);
    }
    checker_.on_window([this](std::size_t constraint, const ConstraintWindow& window) {
        margins_.on_window(constraint, window);
        if (perfetto_) perfetto_->on_window(constraint, window);
    });
    if (outputs_.report) {
        if (!mmio_) mmio_ = std::make_unique<MmioLog>(false);  // the registers' table
        paths_ = std::make_unique<CallPathTree>(tracer_);
        timeline_ = std::make_unique<CallTimeline>(tracer_);
        tracer_.add_listener(*paths_);
        tracer_.add_listener(*timeline_);
    }
    if (!outputs_.trace.empty()) {
        compact_ = std::make_unique<CompactTraceWriter>(config_.buffer_bytes, is_selected);
        tracer_.add_listener(*compact_);
    }
}

bool TraceAnalysis::selected(std::uint32_t address) const {
    auto it = selection_.find(address);
    return it == selection_.end() ? config_.include.empty() : it->second;
}

void TraceAnalysis::apply_event_budget(double emulated_seconds) {
    double budget = config_.event_budget;
    if (budget <= 0 || emulated_seconds <= 0) return;
    struct Candidate {
        std::uint32_t function;
        std::uint64_t calls;
        double mean;
    };
    std::vector<Candidate> all;
    double events = 0;
    for (const auto& [fn, s] : profile_.overall()) {
        if (!selected(fn)) continue;
        all.push_back({fn, s.calls, static_cast<double>(s.inclusive) / static_cast<double>(s.calls)});
        events += 2.0 * static_cast<double>(s.calls);
    }
    if (all.empty()) return;
    // "Small": cheaper than the median call or than 1,000 cycles, whichever is more; among those
    // the most frequently called go first, as they cost the most trace bandwidth for the least insight.
    std::vector<double> means;
    for (const auto& c : all) means.push_back(c.mean);
    std::nth_element(means.begin(), means.begin() + static_cast<std::ptrdiff_t>(means.size() / 2), means.end());
    double small = std::max(means[means.size() / 2], 1000.0);
    std::sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) { return a.calls > b.calls; });
    for (const auto& c : all) {
        if (events / emulated_seconds <= budget) break;
        if (c.mean > small) continue;
        selection_[c.function] = false;
        events -= 2.0 * static_cast<double>(c.calls);
        auto_dropped_.push_back(tracer_.function_name(c.function));
    }
}

void TraceAnalysis::finish(const SourceTotals& totals) {
    total_cycles_ = totals.cycles;
    apply_event_budget(totals.emulated_seconds);
    if (!outputs_.baseline.empty()) regressions_ = regressions(outputs_.baseline_result, outputs_.regression_threshold);
    if (perfetto_) perfetto_->write(outputs_.perfetto, checker_.results());
    if (compact_) compact_->write(outputs_.trace, clock_hz_, tracer_.threads());
}

std::vector<std::string> TraceAnalysis::failures() const {
    std::vector<std::string> out;
    char line[512];
    for (const auto& r : regressions_) {
        std::snprintf(line, sizeof line, "regression: %s %s %.0f cycles, %+.1f%% against the baseline's %.0f (threshold %+.1f%%)",
                      r["name"].get<std::string>().c_str(), r["measure"].get<std::string>().c_str(), r["now"].get<double>(),
                      100 * r["change"].get<double>(), r["baseline"].get<double>(), 100 * outputs_.regression_threshold);
        out.push_back(line);
    }
    if (!checker_.all_passed()) out.push_back("timing constraints violated");
    return out;
}

std::vector<TestCase> TraceAnalysis::test_cases() const {
    std::vector<TestCase> out;
    for (const auto& r : checker_.results()) {
        TestCase t;
        t.classname = "emutrace.constraints";
        t.name = r.spec->name;
        t.seconds = static_cast<double>(r.occurrences ? r.max : 0) / static_cast<double>(clock_hz_);
        if (!r.passed()) {
            t.failure =
                std::to_string(r.violation_count) + " of " + std::to_string(r.occurrences) + " occurrences violated: " + r.violations.front().reason;
            for (const auto& x : r.violations) {
                t.details += x.reason + " at cycle " + std::to_string(x.end_cycle) + "; stack:";
                for (const auto& f : x.stack) t.details += " " + f;
                t.details += "\n";
            }
        }
        t.output = "occurrences " + std::to_string(r.occurrences) + ", max " + std::to_string(r.occurrences ? r.max : 0) + " cycles, limit " +
                   std::to_string(r.spec->limit_cycles) + " cycles";
        out.push_back(std::move(t));
    }
    // A regression against the baseline fails the run: its own failing case, so that a CI's
    // test view says why (a constraint can pass its limit and still have grown).
    for (const auto& x : regressions_) {
        TestCase t;
        t.classname = "emutrace.regressions";
        t.name = x["name"].get<std::string>() + " " + x["measure"].get<std::string>();
        char text[256];
        std::snprintf(text, sizeof text, "%.0f cycles, %+.1f%% against the baseline's %.0f (threshold %+.1f%%)", x["now"].get<double>(),
                      100 * x["change"].get<double>(), x["baseline"].get<double>(), 100 * outputs_.regression_threshold);
        t.failure = text;
        t.details = "baseline " + outputs_.baseline;
        out.push_back(std::move(t));
    }
    return out;
}

std::string TraceAnalysis::summary() const {
    const std::uint64_t total_cycles = total_cycles_;
    std::string out;
    char line[512];
    // Profile: the functions with the most exclusive time.
    std::vector<std::pair<std::uint32_t, FunctionStats>> rows(profile_.overall().begin(), profile_.overall().end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.exclusive > b.second.exclusive; });
    out += "profile (cycles; exclusive leaves out callees, interrupts and time switched out)\n";
    std::snprintf(line, sizeof line, "  %-28s %8s %12s %12s %10s %10s %6s  %s\n", "function", "calls", "inclusive", "exclusive", "excl min",
                  "excl max", "share", "source");
    out += line;
    for (std::size_t i = 0; i < rows.size() && i < config_.top; ++i) {
        const auto& [fn, s] = rows[i];
        std::snprintf(
            line, sizeof line, "  %-28s %8llu %12llu %12llu %10llu %10llu %5.1f%%  %s\n", tracer_.function_name(fn).substr(0, 28).c_str(),
            static_cast<unsigned long long>(s.calls), static_cast<unsigned long long>(s.inclusive), static_cast<unsigned long long>(s.exclusive),
            static_cast<unsigned long long>(s.exclusive_min), static_cast<unsigned long long>(s.exclusive_max),
            total_cycles ? 100.0 * static_cast<double>(s.exclusive) / static_cast<double>(total_cycles) : 0.0, lines_.at(fn).value_or("").c_str());
        out += line;
    }
    if (!config_.phases.empty()) {
        out += "phases (share of all cycles, inclusive)\n";
        for (const auto& p : config_.phases) {
            auto it = profile_.overall().find(*image_.symbols().address_of(p));
            std::uint64_t incl = it == profile_.overall().end() ? 0 : it->second.inclusive;
            std::uint64_t calls = it == profile_.overall().end() ? 0 : it->second.calls;
            std::snprintf(line, sizeof line, "  %-28s %5.1f%%  %s in %llu calls\n", p.c_str(),
                          total_cycles ? 100.0 * static_cast<double>(incl) / static_cast<double>(total_cycles) : 0.0,
                          time_text(incl, clock_hz_).c_str(), static_cast<unsigned long long>(calls));
            out += line;
        }
    }
    if (!user_events_.counts.empty()) {
        out += "user events  ";
        for (const auto& [id, n] : user_events_.counts) out += " id " + std::to_string(id) + ": " + std::to_string(n) + "x";
        out += "\n";
    }
    if (!checker_.results().empty()) {
        out += "constraints\n";
        std::snprintf(line, sizeof line, "  %-26s %6s %12s %12s %12s %12s %12s  %s\n", "name", "count", "min", "mean", "max", "limit", "worst slack",
                      "verdict");
        out += line;
        for (const auto& r : checker_.results()) {
            char slack[48] = "-";
            if (r.spec->limit_cycles) {
                std::int64_t w = r.worst_slack();
                std::snprintf(slack, sizeof slack, "%s%s", w < 0 ? "-" : "",
                              time_text(static_cast<std::uint64_t>(w < 0 ? -w : w), clock_hz_).c_str());
            }
            std::snprintf(line, sizeof line, "  %-26s %6llu %12s %12s %12s %12s %12s  %s\n", r.spec->name.substr(0, 26).c_str(),
                          static_cast<unsigned long long>(r.occurrences), r.occurrences ? time_text(r.min, clock_hz_).c_str() : "-",
                          time_text(static_cast<std::uint64_t>(r.mean()), clock_hz_).c_str(), time_text(r.max, clock_hz_).c_str(),
                          r.spec->limit_cycles ? time_text(r.spec->limit_cycles, clock_hz_).c_str() : "-", slack,
                          r.passed() ? "ok" : ("VIOLATED " + std::to_string(r.violation_count) + "x").c_str());
            out += line;
            constexpr std::size_t kShown = 5;  // the rest are in the JSON and the JUnit report
            for (std::size_t k = 0; k < r.violations.size() && k < kShown; ++k) {
                const Violation& v = r.violations[k];
                std::string stack;
                for (const auto& f : v.stack) stack += (stack.empty() ? "" : " > ") + f;
                std::snprintf(line, sizeof line, "    at %s (key %u): %s; stack: %s\n", time_text(v.end_cycle, clock_hz_).c_str(), v.key,
                              v.reason.c_str(), stack.empty() ? "(none)" : stack.c_str());
                out += line;
            }
            if (r.violation_count > kShown)
                out += "    ... and " + std::to_string(r.violation_count - kShown) + " more (--json lists the first " +
                       std::to_string(ConstraintResult::kMaxViolations) + ")\n";
        }
    }
    if (!auto_dropped_.empty()) {
        out += "trace selection: left out to meet " + std::to_string(static_cast<long long>(config_.event_budget)) + " events/s:";
        for (const auto& f : auto_dropped_) out += " " + f;
        out += "\n";
    }
    if (tracer_.unmatched_returns()) out += "  (" + std::to_string(tracer_.unmatched_returns()) + " returns matched no call on the shadow stack)\n";
    return out;
}

std::string TraceAnalysis::report_html() const {
    if (!paths_) return {};
    return CalltraceReport{tracer_, profile_,  checker_,      margins_,          *paths_,      *timeline_,
                           lines_,  clock_hz_, total_cycles_, outputs_.perfetto, regressions_, outputs_.baseline}
               .html() +
           (mmio_ ? mmio_->report_html(clock_hz_) : std::string());
}

nlohmann::json TraceAnalysis::to_json(bool every_user_event) const {
    using nlohmann::json;
    json functions = json::array();
    for (const auto& [fn, s] : profile_.overall())
        functions.push_back({{"function", tracer_.function_name(fn)},
                             {"address", fn},
                             {"source", lines_.at(fn).value_or("")},
                             {"calls", s.calls},
                             {"inclusive_cycles", s.inclusive},
                             {"exclusive_cycles", s.exclusive},
                             {"exclusive_min", s.exclusive_min},
                             {"exclusive_max", s.exclusive_max},
                             {"inclusive_min", s.inclusive_min},
                             {"inclusive_max", s.inclusive_max}});
    json per_thread = json::array();
    for (const auto& [key, s] : profile_.by_thread())
        per_thread.push_back({{"function", tracer_.function_name(key.first)},
                              {"thread", tracer_.threads().at(key.second)},
                              {"calls", s.calls},
                              {"inclusive_cycles", s.inclusive},
                              {"exclusive_cycles", s.exclusive}});
    json constraints = json::array();
    for (const auto& r : checker_.results()) {
        json violations = json::array();
        for (const auto& v : r.violations)
            violations.push_back({{"start_cycle", v.start_cycle},
                                  {"end_cycle", v.end_cycle},
                                  {"key", v.key},
                                  {"reason", v.reason},
                                  {"stack", v.stack},
                                  {"time_seconds", static_cast<double>(v.end_cycle) / static_cast<double>(clock_hz_)}});
        constraints.push_back({{"name", r.spec->name},
                               {"occurrences", r.occurrences},
                               {"min_cycles", r.occurrences ? r.min : 0},
                               {"mean_cycles", r.mean()},
                               {"max_cycles", r.max},
                               {"limit_cycles", r.spec->limit_cycles},
                               {"worst_slack_cycles", r.worst_slack()},
                               {"passed", r.passed()},
                               {"violations", violations},
                               {"violation_count", r.violation_count},
                               {"open_at_end", r.open_at_end}});
    }
    json user_events = json::array();
    if (every_user_event)
        for (const auto& e : user_events_.events)
            user_events.push_back({{"cycle", e.cycle}, {"id", e.id}, {"payload", e.payload}, {"thread", tracer_.threads().at(e.thread)}});
    json counts = json::object();
    for (const auto& [id, n] : user_events_.counts) counts[std::to_string(id)] = n;
    return {{"functions", functions},
            {"per_thread", per_thread},
            {"threads", tracer_.threads()},
            {"constraints", constraints},
            {every_user_event ? "user_events" : "user_event_counts", every_user_event ? user_events : counts},
            {"unmatched_returns", tracer_.unmatched_returns()},
            {"auto_dropped", auto_dropped_},
            {"regressions", regressions_}};
}

nlohmann::json TraceAnalysis::regressions(const nlohmann::json& baseline, double threshold) const {
    nlohmann::json out = nlohmann::json::array();
    if (!baseline.contains("calltrace") || !baseline["calltrace"].contains("constraints")) return out;
    for (const auto& r : checker_.results()) {
        for (const auto& b : baseline["calltrace"]["constraints"]) {
            if (b.value("name", "") != r.spec->name) continue;
            // The worst case and the typical case both count: a cache lost on most jobs moves
            // the mean long before it moves the max.
            for (auto [key, now] : {std::pair<const char*, double>{"max_cycles", static_cast<double>(r.max)},
                                    std::pair<const char*, double>{"mean_cycles", r.mean()}}) {
                double before = b.value(key, 0.0);
                if (before > 0 && now > before * (1 + threshold))
                    out.push_back({{"name", r.spec->name}, {"measure", key}, {"baseline", before}, {"now", now}, {"change", now / before - 1}});
            }
        }
    }
    return out;
}

namespace {

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    CalltraceConfig config = parse_calltrace_config(setup.section("calltrace"), setup.section("constraints"));
    CalltraceOutputs outputs{
        setup.output("perfetto"), setup.output("trace"), !setup.output("report").empty(), setup.flag("baseline").value_or(""), {}, 0.05};
    if (auto t = setup.flag("regression-threshold")) {
        char* end = nullptr;
        outputs.regression_threshold = std::strtod(t->c_str(), &end);
        if (end == t->c_str() || *end || outputs.regression_threshold < 0 || outputs.regression_threshold > 100)
            throw ConfigError("--regression-threshold: expected a fraction such as 0.05, got '" + *t + "'");
    }
    if (!outputs.baseline.empty()) {  // before the run, not after it
        const nlohmann::json& base = outputs.baseline_result =
            nlohmann::json::parse(config::read_input(outputs.baseline, "--baseline result", std::size_t{64} << 20), nullptr, false);
        if (base.is_discarded() || !base.is_object())
            throw ConfigError("--baseline " + outputs.baseline + ": not a JSON result of emutrace run --json");
        // What regressions() reads, checked here and not after the run: a mistyped value would
        // end the run in nlohmann's type error naming no file.
        auto mistyped = [&](const std::string& at, const char* wanted) {
            throw ConfigError("--baseline " + outputs.baseline + ": " + at + " is not " + wanted + " (not a result of emutrace run --json?)");
        };
        if (base.contains("calltrace")) {
            const nlohmann::json& ct = base["calltrace"];
            if (!ct.is_object()) mistyped("calltrace", "an object");
            if (ct.contains("constraints")) {
                if (!ct["constraints"].is_array()) mistyped("calltrace.constraints", "a list");
                for (std::size_t i = 0; i < ct["constraints"].size(); ++i) {
                    const nlohmann::json& c = ct["constraints"][i];
                    const std::string at = "calltrace.constraints[" + std::to_string(i) + "]";
                    if (!c.is_object()) mistyped(at, "an object");
                    if (c.contains("name") && !c["name"].is_string()) mistyped(at + ".name", "a string");
                    for (const char* key : {"max_cycles", "mean_cycles"})
                        if (c.contains(key) && !c[key].is_number()) mistyped(at + "." + key, "a number");
                }
            }
        }
        // Durations from another cycle model differ by the model, not by the firmware: comparing
        // them would hide a regression, or invent one.
        if (base.contains("timing") && base["timing"].is_string()) {
            const std::string timing = base["timing"];
            if (timing != setup.cycle_model())
                throw ConfigError("--baseline " + outputs.baseline + ": timed by the " + timing + " cycle model, this run by " +
                                  std::string(setup.cycle_model()) + ": write the baseline again with this model, or run with --timing " + timing);
        }
    }
    // A report without a profile would say little: --report turns the tracer on.
    if (!config.enabled && !setup.flag("calltrace") && outputs.perfetto.empty() && outputs.trace.empty() && !outputs.report) return nullptr;
    return std::make_unique<TraceAnalysis>(std::move(config), std::move(outputs), setup.scenario_file(), in_tree(setup).image(), setup.clock_hz());
}

}  // namespace

AnalysisType calltrace_analysis() {
    AnalysisType t{"calltrace",
                   "function entry/exit tracer: profile, phases, timing constraints (exit 1 when violated), Perfetto and compact traces",
                   {"calltrace", "constraints"},
                   {{"perfetto", "FILE", "Write a Chrome/Perfetto trace (open it in ui.perfetto.dev)"},
                    {"trace", "FILE", "Write the compact trace: the most recent 21-byte entry/exit/user records"}},
                   {{"calltrace", "", "Trace function entry/exit and print the profile"},
                    {"baseline", "FILE", "Earlier --json result: a constraint whose max or mean duration grew fails the run"},
                    {"regression-threshold", "X", "Growth that counts as a regression (default 0.05 = 5%)"}},
                   trace::WantBlocks | trace::WantBranches | trace::WantExceptions | trace::WantMarkers,
                   &create};
    t.campaign = calltrace_campaign();
    return t;
}

}  // namespace emutrace::analysis
