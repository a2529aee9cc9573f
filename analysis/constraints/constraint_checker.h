#pragma once
// Timing constraints over the call tracer's events: a window opens at a start event and closes at
// an end event; its duration must stay within a limit, and an optional deadline event must not
// arrive while it is open (the franking case: the print image ready before the envelope reaches
// the print head). Marker events pair by payload when asked, so overlapping jobs are kept apart.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/calltrace/call_tracer.h"

namespace emutrace::analysis {

/// Something that happens in the call trace.
struct EventSpec {
    enum class Kind : std::uint8_t { Enter, Exit, Marker, Exception };
    Kind kind = Kind::Marker;
    std::uint32_t value = 0;  ///< function address, marker id or exception number
    std::string text;         ///< as written: "enter build_print_image", "marker 2"
    std::string thread;       ///< only in the thread of this name (the RTOS's); empty: in any
    /// `threads`: the call tracer's thread names, by CallEvent::thread.
    bool matches(const CallEvent& e, const std::vector<std::string>& threads) const;
};

struct ConstraintSpec {
    std::string name;
    EventSpec start, end;
    std::optional<EventSpec> deadline;
    std::uint64_t limit_cycles = 0;  ///< 0 = no limit (only the deadline)
    bool by_payload = false;         ///< pair marker events by their payload
};

struct Violation {
    std::uint64_t start_cycle = 0, end_cycle = 0;
    std::uint32_t key = 0;           ///< the payload, when paired by payload
    std::string reason;              ///< "took 13.2 ms > 12 ms" or "deadline before the end"
    std::vector<std::string> stack;  ///< call stack at the end (or deadline) event, outermost first
};

struct ConstraintWindow {
    std::uint64_t start_cycle = 0, end_cycle = 0;
    std::uint32_t key = 0;
    bool violated = false;
};

struct ConstraintResult {
    /// A run of days keeps the figures of every occurrence but the details of only the first
    /// violations, so that its memory stays flat.
    static constexpr std::size_t kMaxViolations = 1'000;
    const ConstraintSpec* spec = nullptr;
    std::uint64_t occurrences = 0;
    std::uint64_t min = UINT64_MAX, max = 0, total = 0;  ///< durations in cycles
    std::vector<Violation> violations;                   ///< the first kMaxViolations
    std::uint64_t violation_count = 0;                   ///< all of them
    std::uint64_t open_at_end = 0;                       ///< windows never closed
    double mean() const { return occurrences ? static_cast<double>(total) / static_cast<double>(occurrences) : 0; }
    /// limit - max duration (negative when violated); meaningless without a limit.
    std::int64_t worst_slack() const { return static_cast<std::int64_t>(spec->limit_cycles) - static_cast<std::int64_t>(occurrences ? max : 0); }
    bool passed() const { return violation_count == 0; }
};

class ConstraintChecker final : public CallListener {
public:
    ConstraintChecker(std::vector<ConstraintSpec> specs, const CallTracer& tracer);
    void on_call_event(const CallEvent& e) override;
    void on_finish(std::uint64_t end_cycle) override;
    const std::vector<ConstraintResult>& results() const { return results_; }
    bool all_passed() const;
    /// Told each occurrence's window as it closes, with the constraint's index in results() (the
    /// Perfetto trace draws them).
    using WindowListener = std::function<void(std::size_t constraint, const ConstraintWindow& window)>;
    void on_window(WindowListener listener) { window_listener_ = std::move(listener); }

private:
    void close(std::size_t i, std::uint32_t key, std::uint64_t start, std::uint64_t end, const std::string& deadline_reason);
    std::vector<std::string> stack_names() const;

    std::vector<ConstraintSpec> specs_;
    const CallTracer& tracer_;
    std::vector<ConstraintResult> results_;
    WindowListener window_listener_;
    std::vector<std::map<std::uint32_t, std::uint64_t>> open_;  ///< per constraint: key -> start cycle
};

}  // namespace emutrace::analysis
