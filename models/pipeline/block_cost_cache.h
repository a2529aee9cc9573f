#pragma once
// The block-cost cache: what a run of instructions, given with the same facts, does to the
// pipeline from a state it has been in before. The component model runs each (state, facts)
// once; after that the cost and the state it leaves are a table lookup.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "models/pipeline/pipeline.h"

namespace emutrace::models {

/// A PipelineCounters difference: what a run of instructions added.
PipelineCounters operator-(const PipelineCounters& a, const PipelineCounters& b);
PipelineCounters& operator+=(PipelineCounters& a, const PipelineCounters& b);

class BlockCostCache {
public:
    using StateId = std::uint32_t;
    struct Transition {
        StateId to = 0;
        PipelineCounters cost;
    };
    struct Stats {
        std::uint64_t lookups = 0, hits = 0, states = 0, clears = 0;
    };

    /// At most `max_states` saved states (about 2 KiB each); a full cache starts again empty.
    explicit BlockCostCache(std::size_t max_states = std::size_t{1} << 16) : max_states_(max_states) {}

    /// The id of `state` (saved the first time it is seen).
    StateId intern(const Pipeline& state);
    const Pipeline& state(StateId id) const { return states_[id]; }
    /// What the instructions whose facts hash to `facts` do from state `from`, if known.
    const Transition* find(StateId from, std::uint64_t facts);
    void remember(StateId from, std::uint64_t facts, Transition t);
    bool full() const { return states_.size() >= max_states_; }
    /// Forgets every state and transition (the ids given so far mean nothing after).
    void clear();
    const Stats& stats() const { return stats_; }

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
    struct KeyHash {
        std::size_t operator()(const Key& k) const { return static_cast<std::size_t>(k.facts ^ (std::uint64_t{k.from} * 0xFF51AFD7ED558CCDull)); }
    };
    std::size_t max_states_;
    std::deque<Pipeline> states_;
    std::unordered_multimap<std::uint64_t, StateId> by_key_hash_;
    std::vector<std::vector<std::uint64_t>> keys_;  ///< each state's key, to tell hash collisions apart
    std::unordered_map<Key, Transition, KeyHash> transitions_;
    std::vector<std::uint64_t> scratch_;
    Stats stats_;
};

}  // namespace emutrace::models
