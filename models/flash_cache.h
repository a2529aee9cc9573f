#pragma once
// A set-associative cache in front of a flash: a TI CC26x2's VIMS in cache mode (8 KiB, 4 ways,
// 64-bit lines, in front of a 128-bit flash at 2 wait states). A hit costs nothing beyond the
// fetch's own cycle; a miss reads the flash. A miss passes the flash's line buffer by (CMEmu's
// VIMS, fitted to silicon: the cache's reads are not cacheable transfers to the flash, which
// buffers only those), so every miss pays the wait states. A lookup costs `tag_cycles` unless its
// tag was read ahead (the line right after the last one looked up).
//
// It sits beside the pipeline, not inside it: a block's misses stall the core for their cycles
// before it runs, which keeps the block-cost cache's key free of the cache's tags (they would
// make every entry's state new), at the price of a miss never overlapping with execution. With
// the pipeline, its bus matrix times the tag lookups of every read, fetch or data
// (MemoryPort::cached), and this cache is given `tag_cycles` 0.

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
    void enable(bool on) { enabled_ = on; }
    bool enabled() const { return enabled_; }
    /// Code [address, address + bytes) is fetched, line by line: the stall cycles its misses and
    /// lookups cost. Fills the lines that missed.
    unsigned fetch(std::uint32_t address, std::uint32_t bytes);
    const FlashCacheCounters& counters() const { return counters_; }
    const FlashCacheParameters& parameters() const { return p_; }

private:
    unsigned look_up(std::uint32_t line_address);
    FlashCacheParameters p_;
    std::uint32_t base_, size_, sets_, line_shift_;
    std::vector<std::uint32_t> tags_;   ///< per set, `ways` entries: line address + 1, 0 when empty
    std::vector<std::uint8_t> victim_;  ///< per set: the way the next fill replaces (round robin)
    std::uint32_t prefetched_tag_ = ~0u;
    std::uint32_t last_line_ = ~0u;
    FlashCacheCounters counters_;
    bool enabled_ = true;
};

}  // namespace emutrace::models
