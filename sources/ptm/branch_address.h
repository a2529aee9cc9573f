#pragma once
// The branch address packet's address bytes as PFT 1.1 and ETMv3's alternative encoding share them
// (Thumb state): 6 address bits in the first byte, 7 in each next one, the last of a short packet
// giving bit 6 to "exception information follows", and a fifth byte with bits 31:28 and the ISA.
// Only the bytes whose bits changed since the previous address are sent.

#include <array>
#include <cstdint>

namespace emutrace::decode {

/// Bytes needed for `address` after `previous`, at least `minimum` (2 when exception bytes follow).
inline unsigned branch_address_byte_count(std::uint32_t address, std::uint32_t previous, unsigned minimum) {
    static constexpr std::array<unsigned, 6> kAddressBits{0, 7, 13, 20, 27, 32};
    for (unsigned n = minimum; n < 5; ++n)
        if ((address >> kAddressBits[n]) == (previous >> kAddressBits[n])) return n;
    return 5;
}

/// Writes the `count` address bytes of `address` at `out` (room for 5).
inline void put_branch_address(std::uint8_t* out, std::uint32_t address, unsigned count, bool exception_follows) {
    for (unsigned i = 0; i < count; ++i) {
        std::uint32_t b;
        if (i == 0)
            b = 0x01 | (address & 0x7E);
        else if (i == 4)
            b = 0x10 | ((address >> 28) & 0x0F);  // Thumb state
        else if (i == count - 1)
            b = (address >> (7 * i)) & 0x3F;
        else
            b = (address >> (7 * i)) & 0x7F;
        if (i + 1 < count)
            b |= 0x80;
        else if (i > 0 && exception_follows)
            b |= 0x40;
        out[i] = static_cast<std::uint8_t>(b);
    }
}

/// The exception information after the address: the number's low four bits, and a second byte
/// with bits 8:4 when it has them. Returns the bytes written (room for 2).
inline unsigned put_exception_number(std::uint8_t* out, std::uint32_t number) {
    out[0] = static_cast<std::uint8_t>((number & 0xF) << 1 | (number > 0xF ? 0x80 : 0));
    if (number <= 0xF) return 1;
    out[1] = static_cast<std::uint8_t>((number >> 4) & 0x1F);
    return 2;
}

}  // namespace emutrace::decode
