#pragma once
// Function entry and exit from the stream's Branch events, without touching the firmware: a call
// (BL/BLX) enters the function reached; a return (BX LR, POP/LDM with pc, LDR pc) pops the shadow
// stack back to the frame whose return address it reached, which also resynchronises after
// longjmp-style unwinds; a jump to another function's first instruction is a tail call.
// Exception handlers run in their own context and thread switches change which shadow stack is
// live, as in the entry/exit tracing paper's per-thread shadow stacks.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "decode/elf_image.h"
#include "emutrace/sink.h"

namespace emutrace::analysis {

/// A derived event: what the call tracer's listeners (profile, constraints, writers) consume.
struct CallEvent {
    /// Resume: the code an exception interrupted (or a thread switched in) goes on, at the cycle
    /// its first block starts, after the exception return's own cycles.
    enum class Kind : std::uint8_t { Entry, Exit, Marker, ExceptionEntry, ExceptionReturn, ThreadSwitch, Resume };
    Kind kind = Kind::Entry;
    std::uint64_t cycle = 0;
    std::uint32_t function = 0;  ///< Entry/Exit: function start address. Exception*: exception number
    std::uint32_t thread = 0;    ///< index into CallTracer::threads(); ThreadSwitch: the new thread
    /// The shadow stack the event belongs to: a thread's index, or kExceptionContext + nesting
    /// level for handlers. ExceptionEntry/Return: the context that was interrupted / resumes.
    std::uint32_t context = 0;
    std::uint32_t depth = 0;    ///< Entry/Exit: stack depth of the frame (0 = outermost)
    std::uint32_t id = 0;       ///< Marker: the event id
    std::uint32_t payload = 0;  ///< Marker: the payload
    /// Entry: by a tail call, so it returns to the caller of the function it replaces. Exit: the
    /// function was replaced by a tail call, the Entry that follows.
    bool tail = false;
    /// Exit: the run ended with the function still open (no return happened).
    bool at_end = false;
};

constexpr std::uint32_t kExceptionContext = 1u << 16;

class CallListener {
public:
    virtual ~CallListener() = default;
    virtual void on_call_event(const CallEvent& e) = 0;
    virtual void on_finish(std::uint64_t end_cycle) { (void)end_cycle; }
};

class CallTracer final : public trace::TraceSink {
public:
    explicit CallTracer(const decode::ElfImage& image);

    std::uint32_t wants() const override { return trace::WantBranches | trace::WantExceptions | trace::WantMarkers; }
    void on_start(const trace::RunInfo& info) override;
    void on_batch(const trace::EventBatch& batch) override;
    void on_end() override;

    void add_listener(CallListener& listener) { listeners_.push_back(&listener); }

    /// Thread names by index; 0 is the code that runs before any thread ("main"), 1 the
    /// exception handlers ("isr"). Each core of a multi-core capture is a thread of its own, named
    /// after the core, with its own call stacks (its handlers' among them).
    const std::vector<std::string>& threads() const { return thread_names_; }
    /// The live call stack of the current context, outermost first, as function addresses.
    std::vector<std::uint32_t> current_stack() const;
    std::string function_name(std::uint32_t address) const;
    std::uint64_t unmatched_returns() const { return unmatched_returns_; }

private:
    struct Frame {
        std::uint32_t function;
        std::uint32_t return_address;  ///< where the caller resumes; 0 for a context's base frame
        /// A BL to code that is no function's start (libgcc's `bleq Lml_s`): kept so that its
        /// return matches, but no function was entered and none is left.
        bool inner = false;
    };
    struct Context {
        std::uint32_t id = 0;  ///< CallEvent::context
        std::uint32_t thread = 0;
        std::vector<Frame> frames;
        bool started = false;
    };

    void on_branch(const trace::Event& e);
    void enter(Context& c, std::uint32_t function, std::uint32_t return_address, std::uint64_t cycle, bool tail = false);
    void leave_to(Context& c, std::uint32_t resume_at, std::uint64_t cycle);
    void pop(Context& c, std::uint64_t cycle, bool tail = false, bool at_end = false);
    void emit(const CallEvent& e);
    Context& live() { return live_ ? *live_ : refresh_live(); }
    Context& refresh_live();
    std::uint32_t function_of(std::uint32_t address) const;
    std::uint32_t thread_index(std::uint32_t tcb, const std::string& name);
    void switch_core(std::uint32_t core);
    std::uint32_t exception_context(std::size_t nesting) const { return exception_base_ + static_cast<std::uint32_t>(nesting); }

    const decode::ElfImage& image_;
    std::vector<CallListener*> listeners_;
    std::vector<std::string> thread_names_{"main", "isr"};
    std::unordered_map<std::uint32_t, std::uint32_t> thread_by_tcb_;
    std::unordered_map<std::uint32_t, Context> thread_contexts_;  ///< by thread index
    std::vector<Context> exception_contexts_;                     ///< one per active exception
    std::uint32_t current_thread_ = 0;
    /// A multi-core capture's cores: each one's thread and active exceptions while another runs.
    struct Core {
        std::string name;
        std::uint32_t thread = 0;
        std::vector<Context> exception_contexts;
        std::uint64_t last_cycle = 0;  ///< its last event's stamp, on its own clock
    };
    std::vector<Core> cores_;
    std::size_t core_ = SIZE_MAX;                       ///< the core whose events come now (none before the first switch)
    std::uint32_t exception_base_ = kExceptionContext;  ///< its handlers' contexts start here
    Context* live_ = nullptr;                           ///< cache of live(); node addresses in thread_contexts_ are stable
    std::uint64_t last_cycle_ = 0;
    std::uint64_t unmatched_returns_ = 0;
};

}  // namespace emutrace::analysis
