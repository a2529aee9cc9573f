#pragma once
// The call-trace analyses a scenario asks for, wired to a machine: tracer, profile, constraints
// and their writers; and what they report after the run.

#include <memory>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/calltrace/compact_trace.h"
#include "analysis/calltrace/profile.h"
#include "analysis/constraints/constraint_checker.h"
#include "analysis/writers/perfetto_writer.h"
#include "app/scenario.h"
#include "decode/elf_image.h"
#include "decode/source_lines.h"
#include "emu/machine.h"

namespace emutrace::app {

/// Keeps the user events (markers) of a run for the reports.
class UserEventLog final : public analysis::CallListener {
public:
    static constexpr std::size_t kMax = 100'000;
    void on_call_event(const analysis::CallEvent& e) override {
        if (e.kind == analysis::CallEvent::Kind::Marker && events.size() < kMax) events.push_back(e);
    }
    std::vector<analysis::CallEvent> events;
};

class TraceAnalysis {
public:
    /// Resolves function names and limits against the image; throws ConfigError naming the
    /// scenario line of a name the ELF does not have.
    TraceAnalysis(const Scenario& scenario, const decode::ElfImage& image, std::uint64_t clock_hz);
    void attach(emu::Machine& machine);

    bool constraints_passed() const { return checker_.all_passed(); }
    /// Profile table, phases and constraint table, for the terminal.
    std::string summary(std::uint64_t total_cycles) const;
    nlohmann::json to_json() const;
    /// Constraints whose max or mean duration grew by more than `threshold` (0.05 = 5%) over the
    /// same constraint in `baseline` (an earlier --json result): {name, measure, baseline, now, change}.
    nlohmann::json regressions(const nlohmann::json& baseline, double threshold) const;
    void write_junit(const std::string& path, const std::string& suite) const;
    void write_perfetto(const std::string& path) const;
    void write_compact_trace(const std::string& path) const;
    /// Whether the scenario's include/exclude globs select the function at `address`.
    bool selected(std::uint32_t address) const;
    /// With calltrace.event_budget: leaves the most frequently called small functions out of the
    /// trace outputs until entry/exit events per emulated second fit the budget.
    void apply_event_budget(double emulated_seconds);

private:
    const Scenario& scenario_;
    const decode::ElfImage& image_;
    decode::SourceLines lines_;  ///< the image's DWARF, opened once for the reports
    std::uint64_t clock_hz_;
    analysis::CallTracer tracer_;
    analysis::Profile profile_;
    analysis::ConstraintChecker checker_;
    UserEventLog user_events_;
    std::unique_ptr<analysis::PerfettoWriter> perfetto_;
    std::unique_ptr<analysis::CompactTraceWriter> compact_;
    std::unordered_map<std::uint32_t, bool> selection_;  ///< cache of selected()
    std::vector<std::string> auto_dropped_;
};

}  // namespace emutrace::app
