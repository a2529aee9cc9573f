#include "app/trace_analysis.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <cstdio>
#include <fnmatch.h>

#include "analysis/writers/junit_writer.h"
#include "decode/source_lines.h"
#include "config/config_error.h"

namespace emutrace::app {
namespace {

analysis::EventSpec resolve(const TraceEventConfig& c, const decode::ElfImage& image) {
    analysis::EventSpec s;
    s.text = c.text();
    if (c.kind == "marker") {
        s.kind = analysis::EventSpec::Kind::Marker;
        s.value = c.value;
    } else if (c.kind == "exception") {
        s.kind = analysis::EventSpec::Kind::Exception;
        s.value = c.value;
    } else {
        s.kind = c.kind == "enter" ? analysis::EventSpec::Kind::Enter : analysis::EventSpec::Kind::Exit;
        auto at = image.symbols().address_of(c.function);
        if (!at) throw ConfigError(c.where + ": no function '" + c.function + "' in " + image.path());
        s.value = *at;
    }
    return s;
}

std::vector<analysis::ConstraintSpec> resolve_all(const Scenario& sc, const decode::ElfImage& image, std::uint64_t clock_hz) {
    std::vector<analysis::ConstraintSpec> out;
    for (const auto& c : sc.constraints) {
        analysis::ConstraintSpec s;
        s.name = c.name;
        s.start = resolve(c.start, image);
        s.end = resolve(c.end, image);
        if (c.deadline) s.deadline = resolve(*c.deadline, image);
        s.limit_cycles = c.limit_cycles ? c.limit_cycles : static_cast<std::uint64_t>(std::llround(c.limit_seconds * static_cast<double>(clock_hz)));
        s.by_payload = c.by_payload;
        out.push_back(std::move(s));
    }
    return out;
}

std::string time_text(std::uint64_t cycles, std::uint64_t clock_hz) {
    char buf[32];
    double us = static_cast<double>(cycles) * 1e6 / static_cast<double>(clock_hz);
    if (us >= 1000) std::snprintf(buf, sizeof buf, "%.3f ms", us / 1000);
    else std::snprintf(buf, sizeof buf, "%.1f us", us);
    return buf;
}

}  // namespace

TraceAnalysis::TraceAnalysis(const Scenario& scenario, const decode::ElfImage& image, std::uint64_t clock_hz)
    : scenario_(scenario), image_(image), lines_(image.path()), clock_hz_(clock_hz), tracer_(image), checker_(resolve_all(scenario, image, clock_hz), tracer_) {
    for (const auto& p : scenario.calltrace.phases)
        if (!image.symbols().address_of(p)) throw ConfigError(scenario.file + ": calltrace.phases names '" + p + "', which is not in " + image.path());
    tracer_.add_listener(profile_);
    tracer_.add_listener(checker_);
    tracer_.add_listener(user_events_);
    // Selection of the traced functions: decided once per function, by name.
    for (const auto& f : image.symbols().functions()) {
        bool in = scenario.calltrace.include.empty();
        for (const auto& g : scenario.calltrace.include) in = in || fnmatch(g.c_str(), f.name.c_str(), 0) == 0;
        for (const auto& g : scenario.calltrace.exclude) in = in && fnmatch(g.c_str(), f.name.c_str(), 0) != 0;
        selection_[f.address] = in;
    }
    auto is_selected = [this](std::uint32_t address) { return selected(address); };
    if (!scenario.outputs.perfetto.empty()) {
        perfetto_ = std::make_unique<analysis::PerfettoWriter>(tracer_, clock_hz, is_selected);
        tracer_.add_listener(*perfetto_);
    }
    if (!scenario.outputs.trace.empty()) {
        compact_ = std::make_unique<analysis::CompactTraceWriter>(scenario.calltrace.buffer_bytes, is_selected);
        tracer_.add_listener(*compact_);
    }
}

bool TraceAnalysis::selected(std::uint32_t address) const {
    auto it = selection_.find(address);
    return it == selection_.end() ? scenario_.calltrace.include.empty() : it->second;
}

void TraceAnalysis::apply_event_budget(double emulated_seconds) {
    double budget = scenario_.calltrace.event_budget;
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

void TraceAnalysis::write_compact_trace(const std::string& path) const {
    if (compact_) compact_->write(path, clock_hz_, tracer_.threads());
}

void TraceAnalysis::attach(emu::Machine& machine) { machine.add_sink(tracer_); }

std::string TraceAnalysis::summary(std::uint64_t total_cycles) const {
    std::string out;
    char line[512];
    // Profile: the functions with the most exclusive time.
    std::vector<std::pair<std::uint32_t, analysis::FunctionStats>> rows(profile_.overall().begin(), profile_.overall().end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.exclusive > b.second.exclusive; });
    out += "profile (cycles; exclusive leaves out callees, interrupts and time switched out)\n";
    std::snprintf(line, sizeof line, "  %-28s %8s %12s %12s %10s %10s %6s  %s\n", "function", "calls", "inclusive", "exclusive", "excl min",
                  "excl max", "share", "source");
    out += line;
    for (std::size_t i = 0; i < rows.size() && i < scenario_.calltrace.top; ++i) {
        const auto& [fn, s] = rows[i];
        std::snprintf(line, sizeof line, "  %-28s %8llu %12llu %12llu %10llu %10llu %5.1f%%  %s\n", tracer_.function_name(fn).substr(0, 28).c_str(),
                      static_cast<unsigned long long>(s.calls), static_cast<unsigned long long>(s.inclusive),
                      static_cast<unsigned long long>(s.exclusive), static_cast<unsigned long long>(s.exclusive_min),
                      static_cast<unsigned long long>(s.exclusive_max),
                      total_cycles ? 100.0 * static_cast<double>(s.exclusive) / static_cast<double>(total_cycles) : 0.0,
                      lines_.at(fn).value_or("").c_str());
        out += line;
    }
    if (!scenario_.calltrace.phases.empty()) {
        out += "phases (share of all cycles, inclusive)\n";
        for (const auto& p : scenario_.calltrace.phases) {
            auto it = profile_.overall().find(*image_.symbols().address_of(p));
            std::uint64_t incl = it == profile_.overall().end() ? 0 : it->second.inclusive;
            std::uint64_t calls = it == profile_.overall().end() ? 0 : it->second.calls;
            std::snprintf(line, sizeof line, "  %-28s %5.1f%%  %s in %llu calls\n", p.c_str(),
                          total_cycles ? 100.0 * static_cast<double>(incl) / static_cast<double>(total_cycles) : 0.0,
                          time_text(incl, clock_hz_).c_str(), static_cast<unsigned long long>(calls));
            out += line;
        }
    }
    if (!user_events_.events.empty()) {
        std::map<std::uint32_t, std::size_t> by_id;
        for (const auto& e : user_events_.events) ++by_id[e.id];
        out += "user events  ";
        for (const auto& [id, n] : by_id) out += " id " + std::to_string(id) + ": " + std::to_string(n) + "x";
        out += "\n";
    }
    if (!checker_.results().empty()) {
        out += "constraints\n";
        std::snprintf(line, sizeof line, "  %-26s %6s %12s %12s %12s %12s %12s  %s\n", "name", "count", "min", "mean", "max", "limit",
                      "worst slack", "verdict");
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
                          r.passed() ? "ok" : ("VIOLATED " + std::to_string(r.violations.size()) + "x").c_str());
            out += line;
            for (const auto& v : r.violations) {
                std::string stack;
                for (const auto& f : v.stack) stack += (stack.empty() ? "" : " > ") + f;
                std::snprintf(line, sizeof line, "    at %s (key %u): %s; stack: %s\n", time_text(v.end_cycle, clock_hz_).c_str(), v.key,
                              v.reason.c_str(), stack.empty() ? "(none)" : stack.c_str());
                out += line;
            }
        }
    }
    if (!auto_dropped_.empty()) {
        out += "trace selection: left out to meet " + std::to_string(static_cast<long long>(scenario_.calltrace.event_budget)) +
               " events/s:";
        for (const auto& f : auto_dropped_) out += " " + f;
        out += "\n";
    }
    if (tracer_.unmatched_returns())
        out += "  (" + std::to_string(tracer_.unmatched_returns()) + " returns matched no call on the shadow stack)\n";
    return out;
}

nlohmann::json TraceAnalysis::to_json() const {
    using nlohmann::json;
    json functions = json::array();
    for (const auto& [fn, s] : profile_.overall())
        functions.push_back({{"function", tracer_.function_name(fn)}, {"address", fn}, {"source", lines_.at(fn).value_or("")},
                             {"calls", s.calls}, {"inclusive_cycles", s.inclusive},
                             {"exclusive_cycles", s.exclusive}, {"exclusive_min", s.exclusive_min}, {"exclusive_max", s.exclusive_max},
                             {"inclusive_min", s.inclusive_min}, {"inclusive_max", s.inclusive_max}});
    json per_thread = json::array();
    for (const auto& [key, s] : profile_.by_thread())
        per_thread.push_back({{"function", tracer_.function_name(key.first)}, {"thread", tracer_.threads().at(key.second)},
                              {"calls", s.calls}, {"inclusive_cycles", s.inclusive}, {"exclusive_cycles", s.exclusive}});
    json constraints = json::array();
    for (const auto& r : checker_.results()) {
        json violations = json::array();
        for (const auto& v : r.violations)
            violations.push_back({{"start_cycle", v.start_cycle}, {"end_cycle", v.end_cycle}, {"key", v.key}, {"reason", v.reason},
                                  {"stack", v.stack}, {"time_seconds", static_cast<double>(v.end_cycle) / static_cast<double>(clock_hz_)}});
        constraints.push_back({{"name", r.spec->name}, {"occurrences", r.occurrences}, {"min_cycles", r.occurrences ? r.min : 0},
                               {"mean_cycles", r.mean()}, {"max_cycles", r.max}, {"limit_cycles", r.spec->limit_cycles},
                               {"worst_slack_cycles", r.worst_slack()}, {"passed", r.passed()}, {"violations", violations},
                               {"open_at_end", r.open_at_end}});
    }
    json user_events = json::array();
    for (const auto& e : user_events_.events)
        user_events.push_back({{"cycle", e.cycle}, {"id", e.id}, {"payload", e.payload}, {"thread", tracer_.threads().at(e.thread)}});
    return {{"functions", functions}, {"per_thread", per_thread}, {"threads", tracer_.threads()}, {"constraints", constraints},
            {"user_events", user_events},
            {"unmatched_returns", tracer_.unmatched_returns()}, {"auto_dropped", auto_dropped_}};
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

void TraceAnalysis::write_junit(const std::string& path, const std::string& suite) const {
    analysis::write_junit(path, suite, checker_.results(), clock_hz_);
}

void TraceAnalysis::write_perfetto(const std::string& path) const {
    if (perfetto_) perfetto_->write(path, checker_.results());
}

}  // namespace emutrace::app
