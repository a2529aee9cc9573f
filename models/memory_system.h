#pragma once
// The buses and memories the core sees, as properties of address ranges: which port of the core
// a transfer takes, how long a memory makes a transfer wait, whether instruction fetches and data
// meet at one memory interface. A board preset says these of its regions; the rest of the map has
// the Cortex-M3/M4 defaults (code region on I-Code/D-Code, the System bus above, the PPB inside).

#include <array>
#include <cstdint>
#include <vector>

namespace emutrace::models {

/// The core's bus master interfaces.
enum class BusPort : std::uint8_t {
    Code,     ///< 0x00000000-0x1FFFFFFF: fetches on I-Code, data on D-Code
    System,   ///< 0x20000000-0xDFFFFFFF and vendor space: fetches and data on one bus
    Private,  ///< 0xE0000000-0xE00FFFFF: the PPB (SCS, DWT), inside the core
};

/// What a memory region does to transfers.
struct MemoryPort {
    BusPort port = BusPort::System;
    std::uint8_t wait_states = 0;  ///< added to every data phase
    /// Cycles a fetched word holds the bus (at least 1): an STM32F100's SRAM takes 2 over the
    /// System bus, since fetches there go through the core's registered System-bus interface.
    std::uint8_t fetch_word_cycles = 1;
    /// Fetches and data meet at one memory interface even on separate core ports (an STM32F1's
    /// flash interface serves I-Code and D-Code one transfer a cycle, data first).
    bool fetch_shares_data_port = false;
    /// An unaligned access takes the aligned transfers the core splits it into.
    bool times_unaligned = false;
    /// A flash read a line at a time into a line buffer (a CC26x2's VIMS): bytes a line holds (0:
    /// no line buffer), and the wait states a fetch pays when the buffer does not hold its line
    /// (every fetch while the line buffers are off, MemoryMode::line_buffers).
    std::uint16_t line_bytes = 0;
    std::uint8_t line_wait_states = 0;
    /// A cache stands in front of the region, its tags kept beside the pipeline
    /// (models/flash_cache.h). While it is on (MemoryMode::cache_enabled) the pipeline times every
    /// read here, fetch or data, through the cache's front: a line buffer of one cache line
    /// (`cache_line_bytes`) that serves a read in the line it holds at once, and the tag lookup of
    /// any other line, which waits `cache_tag_cycles` unless the cache read that tag ahead (the
    /// line after the last one looked up); a line the tags missed (BusMatrix::cache_missed) waits
    /// `line_wait_states` more on its first read. A TI CC26x2's VIMS: 8-byte lines, a cycle a lookup.
    bool cached = false;
    std::uint16_t cache_line_bytes = 0;
    std::uint8_t cache_tag_cycles = 0;
};

/// What firmware switches at run time in the memory system, through registers (a CC26x2's
/// VIMS_CTL: the cache mode and the line buffers' disable bits).
struct MemoryMode {
    bool cache_enabled = true;  ///< the regions' caches serve fetches
    bool line_buffers = true;   ///< the flash line buffers keep the last line read
    bool operator==(const MemoryMode&) const = default;
};

/// Whether an access of `size` bytes at `address` is misaligned: the core's aligner then splits it
/// into aligned transfers by the address's low bits. Nothing else of those bits times an access.
inline bool misaligned(std::uint32_t address, unsigned size) {
    return size > 1 && (address & (size - 1u));
}

/// The cycles an unaligned access of `size` bytes at `address` takes beyond one transfer, in a
/// memory that times the aligned transfers the core splits it into (MemoryPort::times_unaligned)
/// and adds `wait_states` to each: a word at 1 or 3 mod 4 goes as byte, halfword, byte; at 2 mod
/// 4, or a halfword at an odd address, as two (silicon: ldr_str_unaligned).
inline unsigned unaligned_transfer_extra(std::uint32_t address, unsigned size, unsigned wait_states) {
    if (!misaligned(address, size)) return 0;
    return (size == 4 && (address & 1) ? 2u : 1u) * (1 + wait_states);
}

/// The address as timing sees an access of `size` bytes there: an aligned access as its word's
/// first byte, for only a misaligned one is split by its low bits (misaligned()). Keyed so, a byte
/// or aligned halfword access at any offset of a word keys alike.
inline std::uint32_t timing_address(std::uint32_t address, unsigned size) {
    return address & (misaligned(address, size) ? ~0u : ~3u);
}

/// The cycles each fetched word waits in a memory with `wait_states` that delivers a word every
/// `fetch_word_cycles` (SRAM over the System bus: 2): the per-block model charges them per word.
inline unsigned fetch_wait(unsigned wait_states, unsigned fetch_word_cycles) {
    return wait_states + (fetch_word_cycles > 1 ? fetch_word_cycles - 1u : 0u);
}

/// The board's memories by address.
class MemorySystem {
public:
    struct Region {
        std::uint32_t base = 0, size = 0;
        MemoryPort port;
    };
    MemorySystem() = default;
    /// `regions` are disjoint (the board's memory plan, emu/memory_map.h, refuses overlaps).
    explicit MemorySystem(std::vector<Region> regions);
    /// The region's properties at `address`, or the architectural default there.
    const MemoryPort& at(std::uint32_t address) const {
        const int i = region_index(address);
        return i >= 0 ? regions_[static_cast<std::size_t>(i)].port : default_at(address);
    }
    /// What of a data address decides its timing, as a key: its memory and its alignment (the
    /// aligner splits by the low bits), and in a memory with a line buffer its line, which decides
    /// whether the buffer holds it (the cache's line, the finer, where a cache may be in front),
    /// and whether an unaligned access there may reach the next one. A memory hook calls this on
    /// every access of a hooked board: its parts are worked out once, per region (Keyed).
    std::uint64_t timing_key(std::uint32_t address) const {
        const int i = region_index(address);
        return key_in(i >= 0 ? keyed_[static_cast<std::size_t>(i)] : default_keyed(address), address);
    }
    /// timing_key() when `address` is in a region alone in its page (no call, for a memory hook's
    /// hot path); else false, and timing_key() finds it.
    bool paged_timing_key(std::uint32_t address, std::uint64_t& key) const {
        const int i = paged_index(address);
        if (i < 0) return false;
        key = key_in(keyed_[static_cast<std::size_t>(i)], address);
        return true;
    }
    /// The port the architecture assigns `address` to.
    static BusPort port_of(std::uint32_t address);

private:
    /// A memory's part of timing_key: a number of its own, and the line its buffer holds (0: none).
    struct Keyed {
        std::uint64_t id = 0;
        std::uint32_t line = 0;
        std::uint8_t line_shift = 0;  ///< log2(line) when a power of two, else 0 (a division)
    };
    static std::uint64_t key_in(const Keyed& k, std::uint32_t address) {
        std::uint64_t key = k.id ^ (std::uint64_t{address & 3u} << 60);
        if (!k.line) return key;
        const std::uint32_t line = k.line_shift ? address >> k.line_shift : address / k.line;
        key ^= std::uint64_t{line} << 20;
        // An unaligned access there whose last piece may reach the next line (a word at 16n+13
        // reads 16n+16 too, one at 16n+9 does not).
        if ((address & 3u) && (k.line_shift ? address & (k.line - 1) : address % k.line) + 4 > k.line) key ^= std::uint64_t{1} << 59;
        return key;
    }
    static constexpr unsigned kPageShift = 24;  ///< regions are found by their 16 MiB page first
    static constexpr std::uint8_t kNoPage = 0;  ///< page_: no region there, or more than one
    /// The index of the region holding `address` when it is alone in its page, else -1.
    int paged_index(std::uint32_t address) const {
        const std::uint8_t page = page_[address >> kPageShift];
        if (page == kNoPage || address - regions_[page - 1u].base >= regions_[page - 1u].size) return -1;
        return page - 1;
    }
    /// The index of the region holding `address`, or -1.
    int region_index(std::uint32_t address) const {
        const int i = paged_index(address);
        return i >= 0 ? i : region_index_slow(address);
    }
    int region_index_slow(std::uint32_t address) const;
    const MemoryPort& default_at(std::uint32_t address) const;
    const Keyed& default_keyed(std::uint32_t address) const;
    std::vector<Region> regions_;
    std::vector<Keyed> keyed_;  ///< per region of regions_
    /// Per 16 MiB page: 1 + the index of the one region in it, or kNoPage (then every region is
    /// looked at). A Cortex-M's memories rarely share a page, so a lookup is a load and a compare.
    std::array<std::uint8_t, (std::size_t{1} << (32 - kPageShift))> page_{};
    MemoryPort code_{BusPort::Code}, system_{BusPort::System}, private_{BusPort::Private};
    static constexpr std::uint64_t kSpread = 0x9E3779B97F4A7C15ull;                       ///< spreads a memory's number over the key's bits
    Keyed code_keyed_{kSpread}, system_keyed_{2 * kSpread}, private_keyed_{3 * kSpread};  // a region i: (i + 4) * kSpread
};

}  // namespace emutrace::models
