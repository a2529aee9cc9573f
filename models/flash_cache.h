#pragma once
// A set-associative cache in front of a flash: a TI CC26x2's VIMS in cache mode (8 KiB, 4 ways,
// 64-bit lines, in front of a 128-bit flash at 2 wait states). A hit costs nothing beyond the
// fetch's own cycle; a miss reads the flash. A miss passes the flash's line buffer by (CMEmu's
// VIMS, fitted to silicon: the cache's reads are not cacheable transfers to the flash, which
// buffers only those), so every miss pays the wait states. A lookup costs `tag_cycles` unless its
// tag was read ahead (the line right after the last one looked up). A full set evicts a
// pseudo-random way (victim()).
//
// It keeps the tags beside the timing model, not inside it, which keeps the block-cost cache's key
// free of them (they would make every saved state new): a block's lines are looked up before it
// runs. The per-block model stalls the core for what its misses and lookups cost. The pipeline
// times them itself, as bus wait states that its prefetch queue may hide (MemoryPort::cached):
// this cache is given `miss_cycles` and `tag_cycles` 0 there, and says which lines missed.

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace emutrace::models {

/// What a board says of its flash cache (a region's `cache:`).
struct FlashCacheParameters {
    std::uint32_t size = 8 * 1024;  ///< bytes of cached data
    std::uint32_t ways = 4;         ///< lines a set holds
    std::uint32_t line = 8;         ///< bytes a line holds (and a miss fills)
    std::uint32_t flash_line = 16;  ///< bytes the flash reads at once into its line buffer (cache off); 0: no line buffer
    std::uint8_t miss_cycles = 2;   ///< a miss: the flash's wait states
    std::uint8_t tag_cycles = 1;    ///< a lookup whose tag was not prefetched
};

/// The cache's counts since the start.
struct FlashCacheCounters {
    std::uint64_t lookups = 0, misses = 0, stall_cycles = 0;
};

class FlashCache {
public:
    /// Caches [base, base + size); the parameters were validated (sizes powers of two).
    FlashCache(std::uint32_t base, std::uint32_t size, const FlashCacheParameters& parameters);

    /// Whether `address` is in the cached region.
    bool covers(std::uint32_t address) const { return address - base_ < size_; }
    /// Whether the cache serves fetches: off (firmware set its controller's mode to off or to
    /// GPRAM), fetch() costs nothing here and the pipeline times the flash and its line buffer.
    /// Leaving cache mode invalidates every line (the VIMS resets its tags).
    void enable(bool on) {
        if (enabled_ && !on) std::fill(tags_.begin(), tags_.end(), 0u), std::fill(fill_.begin(), fill_.end(), std::uint8_t{0}), ++fills_;
        enabled_ = on;
    }
    bool enabled() const { return enabled_; }
    /// Code [address, address + bytes) is fetched, line by line: the stall cycles its misses and
    /// lookups cost. Fills the lines that missed, and tells `missed` each one's first address.
    template <typename Missed>
    unsigned fetch(std::uint32_t address, std::uint32_t bytes, Missed&& missed) {
        if (bytes == 0) return 0;
        const std::uint32_t first = address >> line_shift_, last = (address + bytes - 1) >> line_shift_;
        Present& present = present_[first % present_.size()];
        if (present.first == first && present.last >= last && present.fills == fills_) return fetch_present(first, last);
        unsigned stall = 0;
        bool all_hit = true;
        for (std::uint32_t l = first; l <= last; ++l) {
            if (l == last_line_) continue;  // the line just read is still on the bus: no new lookup
            const Lookup lookup = look_up(l);
            stall += lookup.stall;
            if (lookup.missed) missed(l << line_shift_), all_hit = false;
            last_line_ = l;
        }
        if (all_hit) present = {first, last, fills_};
        counters_.stall_cycles += stall;
        return stall;
    }
    unsigned fetch(std::uint32_t address, std::uint32_t bytes) {
        return fetch(address, bytes, [](std::uint32_t) {});
    }
    const FlashCacheCounters& counters() const { return counters_; }
    const FlashCacheParameters& parameters() const { return p_; }

private:
    struct Lookup {
        unsigned stall = 0;  ///< what the lookup and a miss cost
        bool missed = false;
    };
    Lookup look_up(std::uint32_t line_address);
    // fetch() of lines all found in the cache when last fetched, with no line filled since (a hit
    // changes no tag and no way to fill): the lookups would all hit, so only the tag read ahead,
    // the line on the bus and the counts move, as the lookups would move them.
    unsigned fetch_present(std::uint32_t first, std::uint32_t last) {
        const std::uint32_t from = first == last_line_ ? first + 1 : first;
        if (from > last) return 0;
        const unsigned stall = from == prefetched_tag_ ? 0 : p_.tag_cycles;  // the next lines' tags were read ahead
        counters_.lookups += last - from + 1;
        counters_.stall_cycles += stall;
        prefetched_tag_ = last + 1;
        last_line_ = last;
        return stall;
    }
    /// A run of lines [first, last] a fetch found all present while `fills` lines had been filled.
    struct Present {
        std::uint32_t first = ~0u, last = 0;
        std::uint64_t fills = 0;
    };
    std::uint32_t victim(std::uint32_t set, const std::uint32_t* ways, bool prefetched);
    FlashCacheParameters p_;
    std::uint32_t base_, size_, sets_, line_shift_;
    std::vector<std::uint32_t> tags_;  ///< per set, `ways` entries: line address + 1, 0 when empty
    std::vector<std::uint8_t> fill_;   ///< per set not yet full: the way the next fill takes
    std::uint8_t lfsr_ = 1;            ///< picks the way a fill of a full set replaces (victim())
    std::uint32_t prefetched_tag_ = ~0u;
    std::uint32_t last_line_ = ~0u;
    FlashCacheCounters counters_;
    std::uint64_t fills_ = 0;            ///< lines filled, and invalidations: what a hit cannot change
    std::array<Present, 1024> present_;  ///< by first line: a block's lines seen all present (most blocks run again unchanged)
    bool enabled_ = true;
};

}  // namespace emutrace::models
