#include "models/pipeline/block_cost_cache.h"

namespace emutrace::models {
namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    return h ^ (h >> 29);
}

std::uint64_t hash_words(const std::vector<std::uint64_t>& words) {
    std::uint64_t h = BlockCostCache::kEmpty;
    for (std::uint64_t w : words) h = mix(h, w);
    return h;
}

}  // namespace

PipelineCounters operator-(const PipelineCounters& a, const PipelineCounters& b) {
    return {a.cycles - b.cycles, a.instructions - b.instructions, a.lsu - b.lsu, a.fold - b.fold};
}

PipelineCounters& operator+=(PipelineCounters& a, const PipelineCounters& b) {
    a.cycles += b.cycles, a.instructions += b.instructions, a.lsu += b.lsu, a.fold += b.fold;
    return a;
}

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

const BlockCostCache::Transition* BlockCostCache::find(StateId from, std::uint64_t facts) {
    ++stats_.lookups;
    auto it = transitions_.find(Key{from, facts});
    if (it == transitions_.end()) return nullptr;
    ++stats_.hits;
    return &it->second;
}

void BlockCostCache::remember(StateId from, std::uint64_t facts, Transition t) {
    transitions_.insert_or_assign(Key{from, facts}, t);
}

void BlockCostCache::clear() {
    states_.clear();
    keys_.clear();
    by_key_hash_.clear();
    transitions_.clear();
    ++stats_.clears;
}

std::uint64_t BlockCostCache::hash(std::uint64_t h, const InstructionFacts& f, const MemorySystem& memory) {
    auto port = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&memory.at(f.data_address)));
    h = mix(h, f.pc | std::uint64_t{f.executed} << 32 | std::uint64_t{f.taken} << 33 | std::uint64_t{f.execute_cycles} << 40 |
                   std::uint64_t{f.it_passes} << 48);
    h = mix(h, f.target | std::uint64_t{f.lr} << 32);
    return mix(h, port ^ (std::uint64_t{f.data_address & 3u} << 60));
}

}  // namespace emutrace::models
