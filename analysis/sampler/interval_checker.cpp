#include "analysis/sampler/interval_checker.h"

namespace emutrace::analysis::sampler {

std::size_t IntervalChecker::KeyHash::operator()(const Key& k) const {
    std::uint64_t h = (static_cast<std::uint64_t>(k.from) << 40) ^ (static_cast<std::uint64_t>(k.to) << 20) ^ k.cycles;
    h = (h ^ k.markers.bits) * 0x9E3779B97F4A7C15ull;
    h = (h ^ k.markers.assigned) * 0x9E3779B97F4A7C15ull;
    for (auto c : k.markers.counters) h = (h ^ c) * 0x100000001b3ull;
    return static_cast<std::size_t>(h ^ (h >> 29)) ^ k.from_entry;
}

const Reconstruction& IntervalChecker::lookup(std::uint32_t from, std::uint32_t to, const MarkerState& markers, std::uint64_t cycles,
                                              bool from_entry) {
    Key key{from, to, cycles, markers, from_entry};
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, reconstruct(graph_, plan_, from, to, markers, cycles, stretch_, from_entry)).first;
    return it->second;
}

void IntervalChecker::tally(const Reconstruction& r, const std::vector<std::uint32_t>* ran, MonitorCounts& counts) {
    ++counts.checked;
    if (r.candidates == 0)
        ++counts.impossible;
    else if (r.candidates > 1)
        ++counts.ambiguous;
    else if (!ran)
        ++counts.unique;
    else if (r.path == *ran)
        ++counts.correct;
    else
        ++counts.wrong;
}

void IntervalChecker::check(std::uint32_t from, std::uint32_t to, const MarkerState& markers, std::uint64_t cycles,
                            const std::vector<std::uint32_t>& ran, MonitorCounts& counts, bool from_entry) {
    tally(lookup(from, to, markers, cycles, from_entry), &ran, counts);
}

void IntervalChecker::classify(std::uint32_t from, std::uint32_t to, const MarkerState& markers, std::uint64_t cycles, MonitorCounts& counts,
                               bool from_entry) {
    tally(lookup(from, to, markers, cycles, from_entry), nullptr, counts);
}

}  // namespace emutrace::analysis::sampler
