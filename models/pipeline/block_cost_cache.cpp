#include "models/pipeline/block_cost_cache.h"

#include <algorithm>

namespace emutrace::models {
namespace {

std::uint64_t hash_words(const std::vector<std::uint64_t>& words) {
    std::uint64_t h = BlockCostCache::kEmpty;
    for (std::uint64_t w : words) h = BlockCostCache::mix(h, w);
    return h;
}

}  // namespace

BlockCostCache::StateId BlockCostCache::intern(const Pipeline& state) {
    scratch_.clear();
    state.state_key(scratch_);
    std::uint64_t h = hash_words(scratch_);
    auto [first, last] = by_key_hash_.equal_range(h);
    for (auto it = first; it != last; ++it)
        if (keys_[it->second] == scratch_) return it->second;
    auto id = static_cast<StateId>(states_.size());
    states_.emplace_back(state);
    keys_.push_back(scratch_);
    by_key_hash_.emplace(h, id);
    stats_.states = states_.size();
    return id;
}

BlockCostCache::Transition* BlockCostCache::find_remembered(Recent& slot, const Key& key) {
    auto it = transitions_.find(key);
    if (it == transitions_.end()) return nullptr;
    ++stats_.hits;
    slot = {key, it->second};
    return slot.transition;
}

BlockCostCache::Transition* BlockCostCache::remember(StateId from, std::uint64_t facts, StateId to, const PipelineCounters& cost) {
    Transition t{cost, to};
    const Key key{from, facts};
    auto [it, added] = transitions_.try_emplace(key, nullptr);
    if (added) it->second = &transition_store_.emplace_back();
    Transition* at = it->second;
    *at = t;
    recent_[KeyHash{}(key) & (recent_.size() - 1)] = {key, at};
    return at;
}

void BlockCostCache::clear() {
    states_.clear();
    keys_.clear();
    by_key_hash_.clear();
    transitions_.clear();
    transition_store_.clear();
    std::fill(recent_.begin(), recent_.end(), Recent{});
    ++stats_.clears;
}

std::uint64_t BlockCostCache::hash(std::uint64_t h, const InstructionFacts& f, const MemorySystem& memory) {
    h = mix(h, f.pc | std::uint64_t{f.executed} << 32 | std::uint64_t{f.taken} << 33 | std::uint64_t{f.execute_cycles} << 40 |
                   std::uint64_t{f.it_passes} << 48);
    h = mix(h, f.target | std::uint64_t{f.lr} << 32);
    return mix(h, memory.timing_key(f.data_address));
}

}  // namespace emutrace::models
