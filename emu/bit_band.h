#pragma once
// ARMv7-M bit-banding (ARM ARM B3.1.3; Cortex-M3/M4 TRM "Bit-banding"): each bit of the first MiB
// of SRAM (0x20000000) and of the peripherals (0x40000000) has a word of its own in a 32 MiB alias
// (0x22000000, 0x42000000). A read of the alias word returns the bit; a write sets or clears it by
// a read-modify-write of its target on the bus. The access to the target has the alias access's
// size, so a word alias reads and writes the whole word holding the bit.

#include <cstdint>
#include <optional>

namespace emutrace::emu {

inline constexpr std::uint32_t kBitBandAliasSize = 32u << 20;
inline constexpr std::uint32_t kBitBandAliases[] = {0x22000000u, 0x42000000u};

struct BitBandTarget {
    std::uint32_t address = 0;  ///< the target access's address, aligned to its size
    unsigned bit = 0;           ///< the bit within that access's value
};

/// The bit an access of `size` bytes (1, 2 or 4) at `address` names, or none outside the aliases.
constexpr std::optional<BitBandTarget> bit_band_target(std::uint32_t address, unsigned size) {
    for (const std::uint32_t alias : kBitBandAliases) {
        if (address - alias >= kBitBandAliasSize) continue;
        const std::uint32_t offset = address - alias;
        const std::uint32_t byte = (alias - 0x02000000u) + (offset >> 5);  // the bit-band region's byte
        const unsigned bit = (offset >> 2) & 7u;
        const std::uint32_t aligned = byte & ~(size - 1u);
        return BitBandTarget{aligned, (byte - aligned) * 8u + bit};
    }
    return std::nullopt;
}

}  // namespace emutrace::emu
