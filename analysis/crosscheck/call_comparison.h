#pragma once
// A board's on-target trace (ringdump) and an emulated run of the same ELF side by side, call by
// call: where the two call sequences part, and per function the calls and time of each over the
// ring's window, with the timing model's error where the ring carries DWT_CYCCNT stamps.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calltrace/call_tracer.h"
#include "emutrace/sink.h"

namespace emutrace::decode {
class ElfImage;
}  // namespace emutrace::decode

namespace emutrace::analysis {

/// One run reduced to its calls: the functions entered, in order, threads and handlers apart
/// (an interrupt can come between a call and the tracer's entry hook), and every call's time.
class CallSide final : public trace::TraceSink, public CallListener {
public:
    /// `stacks_of`: functions whose entries keep the call stack they were made in (every one when
    /// null): the ring's functions, on the emulated side. `entry_hook`: the instrumentation's entry
    /// hook (__cyg_profile_func_enter), watched on the emulated side (RunRequest::watch_points):
    /// a call of it for another function than its caller is an inlined copy's entry, which GCC
    /// keeps with its hooks and a board records, though no branch enters the function.
    explicit CallSide(const decode::ElfImage& image, const std::set<std::uint32_t>* stacks_of = nullptr, std::uint32_t entry_hook = 0);
    std::uint32_t wants() const override {
        return trace::WantBranches | trace::WantExceptions | trace::WantMarkers | (entry_hook_ ? static_cast<std::uint32_t>(trace::WantWatches) : 0u);
    }
    void on_batch(const trace::EventBatch& batch) override;
    void on_end() override { tracer_.on_end(); }
    void on_call_event(const CallEvent& e) override;

    struct Entry {
        std::uint32_t function = 0;
        std::uint64_t cycle = 0;
        std::vector<std::uint32_t> stack;  ///< outermost first, the function itself last
    };
    struct Call {
        std::uint32_t function = 0;
        std::uint64_t entry = 0, cycles = 0;  ///< inclusive, from the call tracer
    };
    const std::vector<Entry>& threads() const { return threads_; }
    const std::vector<Entry>& handlers() const { return handlers_; }
    const std::vector<Call>& calls() const { return calls_; }

private:
    CallTracer tracer_;
    const std::set<std::uint32_t>* stacks_of_;
    std::uint32_t entry_hook_ = 0;
    int depth_ = 0;  ///< exceptions active
    std::vector<Entry> threads_, handlers_;
    std::vector<Call> calls_;
    std::vector<std::vector<std::size_t>> open_;  ///< by call-tracer context: calls_ entered, not left
};

struct CallComparison {
    bool identical = false;
    std::string text;
    nlohmann::json json;
};

/// The functions the ring's trace names.
std::set<std::uint32_t> traced_functions(const CallSide& ring);
/// The ring's sequences must be the end of the emulated ones (over the functions the ring names).
CallComparison compare_calls(const CallSide& ring, const CallSide& emulated, const decode::ElfImage& image, bool ring_has_timestamps);

}  // namespace emutrace::analysis
