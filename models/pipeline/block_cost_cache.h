#pragma once
// The block-cost cache: what a run of instructions, given with the same facts, does to the
// pipeline from a state it has been in before. The component model runs each (state, facts)
// once; after that the cost and the state it leaves are a table lookup.

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "models/pipeline/pipeline.h"

namespace emutrace::models {

/// A PipelineCounters difference: what a run of instructions added.
inline PipelineCounters operator-(const PipelineCounters& a, const PipelineCounters& b) {
    return {a.cycles - b.cycles, a.instructions - b.instructions, a.lsu - b.lsu, a.fold - b.fold};
}
inline PipelineCounters& operator+=(PipelineCounters& a, const PipelineCounters& b) {
    a.cycles += b.cycles, a.instructions += b.instructions, a.lsu += b.lsu, a.fold += b.fold;
    return a;
}

class BlockCostCache {
public:
    using StateId = std::uint32_t;
    struct Transition {
        PipelineCounters cost;  ///< what the run adds to the counts (as wide as them: an add, no widening)
        StateId to = 0;
        /// The transitions made next the last two times they differed, and which run made each
        /// (CachedPipeline::follow): a loop's back edge and its exit both stay. `latest` says
        /// which of the two came last: marked, not moved, so that a hit writes a byte.
        struct Then {
            const void* run = nullptr;
            std::uint64_t exit = 0;
            Transition* next = nullptr;
        };
        std::uint8_t latest = 0;
        std::array<Then, 2> then{};
        void add_to(PipelineCounters& c) const { c += cost; }
    };
    struct Stats {
        std::uint64_t lookups = 0, hits = 0, states = 0, clears = 0;
        std::uint64_t followed = 0;  ///< of the hits, found from the transition before (CachedPipeline::follow, which counts them)
    };

    /// At most `max_states` saved states (about 2 KiB each); a full cache starts again empty.
    explicit BlockCostCache(std::size_t max_states = std::size_t{1} << 16) : max_states_(max_states) {}

    /// The id of `state` (saved the first time it is seen).
    StateId intern(const Pipeline& state);
    const Pipeline& state(StateId id) const { return states_[id]; }
    /// What the instructions whose facts hash to `facts` do from state `from`, if known. A
    /// transition stays where it is until clear().
    Transition* find(StateId from, std::uint64_t facts) {
        ++stats_.lookups;
        const Key key{from, facts};
        Recent& slot = recent_[KeyHash{}(key) & (recent_.size() - 1)];
        if (slot.key == key) {
            ++stats_.hits;
            return slot.transition;
        }
        return find_remembered(slot, key);
    }
    /// Remembers what the run did: `cost` as the counts' difference.
    Transition* remember(StateId from, std::uint64_t facts, StateId to, const PipelineCounters& cost);
    bool full() const { return states_.size() >= max_states_; }
    /// Forgets every state and transition (the ids given so far mean nothing after).
    void clear();
    /// Its own lookups; CachedPipeline::stats() adds the followed runs.
    Stats stats() const { return stats_; }

    /// A key from a few words (mix(mix(kEmpty, a), b)...), for runs whose facts they decide.
    static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
        h = (h ^ v) * 0xFF51AFD7ED558CCDull;
        return h ^ (h >> 32);
    }
    /// Adds `f` to a hash of facts in program order, by what decides timing: its data address as
    /// `memory`'s port and alignment, the rest as given.
    static std::uint64_t hash(std::uint64_t h, const InstructionFacts& f, const MemorySystem& memory);
    static constexpr std::uint64_t kEmpty = 0x9E3779B97F4A7C15ull;

private:
    struct Key {
        StateId from;
        std::uint64_t facts;
        bool operator==(const Key&) const = default;
    };
    struct Recent;
    Transition* find_remembered(Recent& slot, const Key& key);
    struct KeyHash {
        std::size_t operator()(const Key& k) const { return static_cast<std::size_t>(k.facts ^ (std::uint64_t{k.from} * 0xFF51AFD7ED558CCDull)); }
    };
    std::size_t max_states_;
    std::deque<Pipeline> states_;
    std::unordered_multimap<std::uint64_t, StateId> by_key_hash_;
    std::vector<std::vector<std::uint64_t>> keys_;  ///< each state's key, to tell hash collisions apart
    // Transitions in the order they were first made, so that those made one after the other (a
    // loop's blocks) are near each other when follow() walks from one to the next.
    std::deque<Transition> transition_store_;
    std::unordered_map<Key, Transition*, KeyHash> transitions_;
    // A direct-mapped table in front of transitions_: the lookup on every block.
    struct Recent {
        Key key{~0u, 0};
        Transition* transition = nullptr;
    };
    std::vector<Recent> recent_ = std::vector<Recent>(std::size_t{1} << 12);
    std::vector<std::uint64_t> scratch_;
    Stats stats_;
};

}  // namespace emutrace::models
