#include "models/flash_cache.h"

#include <doctest/doctest.h>

using namespace emutrace::models;

TEST_CASE("flash cache: every miss costs the flash's wait states, a lookup a cycle unless its tag was prefetched") {
    FlashCache c(0, 64 * 1024, FlashCacheParameters{});  // 8 KiB, 4 ways, 8-byte lines, 2 + 1
    CHECK(c.covers(0x100));
    CHECK_FALSE(c.covers(64 * 1024));
    CHECK(c.fetch(0x100, 8) == 1 + 2);  // cold: a lookup, and the flash
    CHECK(c.fetch(0x108, 8) == 2);      // the next line: tag prefetched; the flash's line buffer does not serve the cache
    CHECK(c.fetch(0x110, 4) == 2);
    CHECK(c.fetch(0x100, 16) == 1);  // back: both lines hit, the first's tag a cycle
    CHECK(c.counters().misses == 3);
    CHECK(c.counters().stall_cycles == 3 + 2 + 2 + 1);
}

TEST_CASE("flash cache: a set holds `ways` lines, replaced in turn") {
    FlashCacheParameters p;
    p.flash_line = 0;  // no line buffer: every miss reads the flash
    p.tag_cycles = 0;
    FlashCache c(0, 1 << 20, p);
    const std::uint32_t set_stride = p.size / p.ways;  // addresses this far apart share a set
    for (std::uint32_t w = 0; w < 4; ++w) CHECK(c.fetch(w * set_stride, 4) == 2);
    for (std::uint32_t w = 0; w < 4; ++w) CHECK(c.fetch(w * set_stride, 4) == 0);  // all four still there
    CHECK(c.fetch(4 * set_stride, 4) == 2);                                        // a fifth evicts the first filled
    CHECK(c.fetch(0, 4) == 2);
    CHECK(c.fetch(2 * set_stride, 4) == 0);
}
