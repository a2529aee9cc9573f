#include "models/flash_cache.h"

#include <bit>

namespace emutrace::models {

FlashCache::FlashCache(std::uint32_t base, std::uint32_t size, const FlashCacheParameters& parameters)
    : p_(parameters), base_(base), size_(size), sets_(parameters.size / parameters.line / parameters.ways),
      line_shift_(static_cast<std::uint32_t>(std::countr_zero(parameters.line))), tags_(static_cast<std::size_t>(sets_) * parameters.ways, 0),
      victim_(sets_, 0) {}

unsigned FlashCache::look_up(std::uint32_t line) {
    ++counters_.lookups;
    // The tag of the line after the one looked up is read ahead; any other lookup takes a cycle.
    unsigned stall = line == prefetched_tag_ ? 0 : p_.tag_cycles;
    prefetched_tag_ = line + 1;
    const std::uint32_t set = line & (sets_ - 1);
    std::uint32_t* ways = &tags_[static_cast<std::size_t>(set) * p_.ways];
    for (std::uint32_t w = 0; w < p_.ways; ++w)
        if (ways[w] == line + 1) return stall;
    ++counters_.misses;
    stall += p_.miss_cycles;
    ways[victim_[set]] = line + 1;
    victim_[set] = static_cast<std::uint8_t>((victim_[set] + 1) % p_.ways);
    return stall;
}

}  // namespace emutrace::models
