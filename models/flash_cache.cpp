#include "models/flash_cache.h"

#include <bit>

namespace emutrace::models {

FlashCache::FlashCache(std::uint32_t base, std::uint32_t size, const FlashCacheParameters& parameters)
    : p_(parameters), base_(base), size_(size), sets_(parameters.size / parameters.line / parameters.ways),
      line_shift_(static_cast<std::uint32_t>(std::countr_zero(parameters.line))), tags_(static_cast<std::size_t>(sets_) * parameters.ways, 0),
      fill_(sets_, 0) {}

FlashCache::Lookup FlashCache::look_up(std::uint32_t line) {
    ++counters_.lookups;
    // The tag of the line after the one looked up is read ahead; any other lookup takes a cycle.
    const bool prefetched = line == prefetched_tag_;
    const unsigned tag = prefetched ? 0 : p_.tag_cycles;
    prefetched_tag_ = line + 1;
    const std::uint32_t set = line & (sets_ - 1);
    std::uint32_t* ways = &tags_[static_cast<std::size_t>(set) * p_.ways];
    for (std::uint32_t w = 0; w < p_.ways; ++w)
        if (ways[w] == line + 1) return {tag, false};
    ++counters_.misses;
    ++fills_;
    ways[victim(set, ways, prefetched)] = line + 1;
    return {tag + p_.miss_cycles, true};
}

// A set not yet full fills its ways in turn. A full one evicts the way an 8-bit maximal LFSR's top
// bits name, which steps on each fill whose tag was not read ahead: the sequence CMEmu fitted to
// the CC2652's silicon (its POLY table, 255 long) is this register's, x^8 + x^4 + x^3 + x^2 + 1
// shifted left from 1, read at bits 7:6. (CMEmu's few special cases around runs of misses are not
// modelled.) Round robin on a loop larger than the cache would miss on every line; this keeps some.
std::uint32_t FlashCache::victim(std::uint32_t set, const std::uint32_t* ways, bool prefetched) {
    std::uint32_t way = 0;
    if (ways[p_.ways - 1] == 0) {  // filled in order: the last way empty means the set is not full
        way = fill_[set];
        fill_[set] = static_cast<std::uint8_t>((fill_[set] + 1) % p_.ways);
    } else {
        way = (lfsr_ >> (8 - std::countr_zero(p_.ways))) % p_.ways;
    }
    if (!prefetched) lfsr_ = static_cast<std::uint8_t>((lfsr_ << 1) ^ (lfsr_ & 0x80 ? 0x1D : 0));
    return way;
}

}  // namespace emutrace::models
