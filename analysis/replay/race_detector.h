#pragma once
// A FastTrack-style data-race detector (Flanagan and Freund, as P-Replayer uses it) over the
// emulator's RAM accesses. Threads and exception handlers each have a vector clock; the
// happens-before edges are the recorded synchronisation (EventLinker's links: the unlock a lock
// follows, the send a receive takes, the create a thread starts after) and, because one core runs
// handlers and threads, interrupt masking: a handler's run and an application critical section
// (PRIMASK or BASEPRI set) exclude each other, as if both took one lock; and enabling an interrupt
// (NVIC_ISER, SysTick's TICKINT) happens before its handler runs. Accesses made inside the
// synchronisation functions, the functions the scenario tells to ignore (the RTOS) and whatever
// they call are not data accesses; neither are accesses to the running context's own stack.
// The replay's holds run only in such functions and are not reported as events, so the ordering
// the replay scheduler adds never hides a race (the paper's discount).

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/replay/context_tracker.h"
#include "analysis/replay/event_linker.h"
#include "analysis/replay/recorder.h"
#include "emutrace/sink.h"

namespace emutrace::analysis::replay {

struct RaceConfig {
    std::unordered_map<std::uint32_t, WatchedCall> watches;        ///< the synchronisation functions, as recording has them
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ignored;  ///< [start, end) of functions whose accesses are not data accesses
    std::uint32_t stack_slack = 64;                                ///< bytes above a context's highest sp still counted as its stack
};

struct RaceAccess {
    std::uint32_t thread = 0;  ///< thread control block, or kHandlerThread | exception
    std::uint32_t pc = 0;
    bool write = false;
};

struct Race {
    std::uint32_t address = 0;  ///< the word (4-byte aligned) both touched
    RaceAccess earlier, later;
    std::size_t count = 1;  ///< times this pair of sites raced
};

class RaceDetector final : public trace::TraceSink {
public:
    explicit RaceDetector(RaceConfig config);
    std::uint32_t wants() const override {
        return trace::WantMemory | trace::WantWatches | trace::WantExceptions | trace::WantBranches | trace::WantMmio;
    }
    void on_batch(const trace::EventBatch& batch) override;

    /// One entry per pair of access sites, in the order first seen.
    const std::vector<Race>& races() const { return races_; }
    std::uint64_t accesses_checked() const { return checked_; }
    /// Which thread or handler a context id is, as reports name it.
    const ContextTracker& context_names() const { return tracker_; }

private:
    using Clock = std::vector<std::uint32_t>;
    struct Epoch {
        std::uint32_t thread = 0, clock = 0, pc = 0;  ///< thread: an index; clock 0 = none
    };
    struct Shadow {
        Epoch write;
        std::vector<Epoch> reads;  ///< the latest read of each thread since the last write
    };
    struct Context {
        std::uint32_t id = 0;
        Clock clock;
        std::vector<bool> frames;  ///< per call: inside ignored code
        std::uint32_t sp_high = 0;
        bool masked = false;  ///< in an application critical section
    };
    Context& context();
    Context& context_of(std::uint32_t id);
    bool ignored(std::uint32_t address) const;
    static void join(Clock& into, const Clock& from);
    void acquire_mask(Context& c);
    void release_mask(Context& c);
    void on_sync(const LogEvent& e, Context& c);
    void on_access(const trace::Event& e);
    /// A write to the System Control Space: an interrupt enable is a release its handler acquires.
    void on_scs_write(std::uint32_t address, std::uint32_t value);
    void report(std::uint32_t address, const Epoch& earlier, bool earlier_write, const Context& c, std::uint32_t pc, bool write);

    RaceConfig config_;
    EventLinker linker_;
    std::vector<Context> contexts_;                           ///< by thread index
    std::unordered_map<std::uint32_t, std::uint32_t> index_;  ///< thread id -> index
    ContextTracker tracker_;
    std::unordered_map<std::uint32_t, Clock> released_;  ///< by event seq: the releasing thread's clock then
    /// By object: the joined clocks of every unlock of it so far, which a lock acquires. For a
    /// mutex that is its last unlock's; an event group's wait or a semaphore's take follows every
    /// set or give before it, by whichever thread.
    std::unordered_map<std::uint32_t, Clock> unlocked_;
    Clock mask_lock_;                                   ///< the clock of the last handler or critical section to end
    Clock creates_;                                     ///< joined clocks of every create so far
    std::unordered_map<std::uint32_t, Clock> enabled_;  ///< by exception number: the enabling context's clock then
    std::unordered_map<std::uint32_t, Shadow> shadow_;  ///< by word address
    std::vector<Race> races_;
    std::unordered_map<std::uint64_t, std::size_t> race_index_;  ///< (pc, pc) -> races_
    std::uint64_t checked_ = 0;
};

}  // namespace emutrace::analysis::replay
