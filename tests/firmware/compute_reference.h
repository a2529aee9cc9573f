// Host-side reference for tests/firmware/compute.c. Kept independent of
// the firmware code (std::sort, table-driven CRC) so that a bug in one
// implementation cannot hide in the other.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

inline uint32_t compute_reference_crc(unsigned iterations)
{
    static const std::array<uint32_t, 256> table = [] {
        std::array<uint32_t, 256> t{};
        for (uint32_t n = 0; n < 256; ++n) {
            uint32_t c = n;
            for (int k = 0; k < 8; ++k)
                c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
            t[n] = c;
        }
        return t;
    }();

    uint32_t state = 0x12345678u;
    uint32_t crc = 0xFFFFFFFFu;
    std::array<uint32_t, 256> values{};
    for (unsigned it = 0; it < iterations; ++it) {
        for (auto &v : values) {
            state = state * 1664525u + 1013904223u;
            v = state;
        }
        std::sort(values.begin(), values.end());
        for (uint32_t v : values) {
            for (int byte = 0; byte < 4; ++byte) {
                const uint8_t b = static_cast<uint8_t>(v >> (8 * byte));
                crc = table[(crc ^ b) & 0xFFu] ^ (crc >> 8);
            }
        }
    }
    return crc ^ 0xFFFFFFFFu;
}
