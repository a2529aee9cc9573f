#pragma once
// The pipeline as the emulator runs it: facts are gathered per instruction and the component
// model runs when someone needs its state (a block starts, a device is read, an exception is
// taken), through the block-cost cache, so that a run of instructions it has seen from the same
// state costs a table lookup. With the cache off it steps every instruction as it is given: the
// reference the cache is checked against.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "models/pipeline/block_cost_cache.h"
#include "models/pipeline/pipeline.h"

namespace emutrace::models {

class CachedPipeline {
public:
    CachedPipeline(const PipelineParameters& parameters, const MemorySystem& memory, CodeView& code, bool use_cache);

    /// The next instruction in program order runs with `facts` (Pipeline::executes).
    void executes(const InstructionFacts& facts);
    /// A run of instructions whose facts hash to `key` (BlockCostCache::hash): `give` hands them
    /// to the pipeline, and is called only when the cache does not know the run.
    ///
    /// `run_id`, when not null, names the run with `exit` so that the same two always give the
    /// same key (e.g. a translated block and where it went): follow() can then take it again.
    using Give = void (*)(Pipeline& pipeline, void* context);
    using Transition = BlockCostCache::Transition;
    void run(std::uint64_t key, Give give, void* context, const void* run_id = nullptr, std::uint64_t exit = 0) {
        if (!use_cache_ || forget_ || live_changed_) return run_after_change(key, give, context, run_id, exit);
        if (Transition* t = cache_.find(state_, key)) {  // the hot path
            take_known(*t);
            return chain(t, run_id, exit);
        }
        run_model(key, give, context, run_id, exit);
    }
    /// The run named `run_id` and `exit` comes next: if it came next the last time the pipeline
    /// made the transition it has just made, it is made again, without a key or a lookup (the
    /// state after a transition is known, so the run decides the next one): the transition, whose
    /// counts are what the run added. Null: call run().
    const Transition* follow(const void* run_id, std::uint64_t exit) {
        Transition* last = last_;
        if (!last || !pending_.empty()) return nullptr;
        const auto& then = last->then;
        std::uint8_t i = 0;
        if (then[0].run != run_id || then[0].exit != exit) {
            if (then[1].run != run_id || then[1].exit != exit) return nullptr;
            i = 1;
        }
        last->latest = i;
        Transition* next = then[i].next;
        ++followed_;
        take_known(*next);
        return last_ = next;
    }
    /// The counts right after follow() has returned a transition (they are counters() then, without
    /// the checks: the hot path of a caller that keeps no counts of its own).
    const PipelineCounters& followed_counters() const { return counters_; }
    /// The run that came after the last transition the last time (a follow() candidate), or null.
    const void* next_run() const { return last_ ? last_->then[last_->latest].run : nullptr; }
    /// The counts once every instruction given has been run.
    const PipelineCounters& counters() {
        if (!pending_.empty()) settle();
        return live_current_ ? live_->counters() : counters_;
    }
    /// Pipeline::at_data_phase() once every instruction given has been run, read from the saved
    /// state moved to now when the pipeline is not live (a device read costs no copy of a state).
    PipelineCounters at_data_phase();
    /// The same, to act on (an exception, a wait): its state is saved again before it runs on.
    Pipeline& change();
    /// The code changed under saved states (code in RAM rewritten, an instruction decoded
    /// again in its IT block): they are forgotten before the next lookup.
    void forget() {
        forget_ = use_cache_;
        last_ = nullptr;
    }
    /// How well the cache did (all zero with it off).
    BlockCostCache::Stats stats() const {
        BlockCostCache::Stats s = cache_.stats();  // a followed run is a lookup found too, counted once on its hot path
        s.followed = followed_, s.lookups += followed_, s.hits += followed_;
        return s;
    }
    /// Writes each simulated cycle's stages to `out` (Pipeline::trace_to).
    void trace_to(std::FILE* out);

private:
    void settle();  // runs the instructions given and not yet run: a lookup or the model
    // run() with the cache off, or after forget() or change(); a run the cache does not know.
    void run_after_change(std::uint64_t key, Give give, void* context, const void* run_id, std::uint64_t exit);
    void run_model(std::uint64_t key, Give give, void* context, const void* run_id, std::uint64_t exit);
    void take_known(const Transition& t) {
        if (live_current_) counters_ = live_->counters(), live_current_ = false;
        t.add_to(counters_);
        state_ = t.to;
    }
    // `t` was made: linked after the transition before when its run is named.
    void chain(Transition* t, const void* run_id, std::uint64_t exit) {
        if (run_id && last_) {
            // The entry for the same run and exit, else the older one, becomes the latest.
            auto& then = last_->then;
            std::uint8_t i = last_->latest;
            if (then[i].run != run_id || then[i].exit != exit) i ^= 1;
            then[i] = {run_id, exit, t};
            last_->latest = i;
        }
        last_ = t;
    }
    void clear_cache();  // forgets every state, and the last transition
    void materialise();  // makes live_ the current state

    // What follow() reads and writes, first and in one cache line, and the instructions given
    // and not yet run (whose emptiness it checks) in the next: the block hook's hot path then
    // touches two lines here, wherever the members after them put the rest.
    alignas(64) Transition* last_ = nullptr;  ///< the transition that led to state_, if the cache made it
    PipelineCounters counters_;
    BlockCostCache::StateId state_ = 0;
    bool live_current_ = true;   ///< live_ is the current state (else state_ and counters_ are)
    bool live_changed_ = false;  ///< live_ was acted on since it was saved: state_ is stale
    bool forget_ = false;
    std::uint64_t followed_ = 0;  ///< runs follow() found (BlockCostCache::Stats::followed)
    alignas(64) std::vector<InstructionFacts> pending_;
    std::uint64_t pending_hash_ = BlockCostCache::kEmpty;
    const MemorySystem& memory_;
    bool use_cache_;
    BlockCostCache cache_;
    std::optional<Pipeline> live_;
};

}  // namespace emutrace::models
