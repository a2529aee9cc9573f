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

TEST_CASE("flash cache: a set fills its `ways` in turn, then a full one evicts the way an LFSR names") {
    FlashCacheParameters p;
    p.tag_cycles = 0;
    FlashCache c(0, 1 << 20, p);
    const std::uint32_t set_stride = p.size / p.ways;  // addresses this far apart share a set
    auto missed = [&](std::uint32_t line) { return c.fetch(line * set_stride, 4) == 2; };
    // Each fill here is a lookup not read ahead: the register (x^8 + x^4 + x^3 + x^2 + 1, from 1)
    // steps after it, 1 -> 2 -> 4 -> 8 -> 16 -> 32 -> 64 -> 128; bits 7:6 name the way.
    for (std::uint32_t w = 0; w < 4; ++w) CHECK(missed(w));
    for (std::uint32_t w = 0; w < 4; ++w) CHECK_FALSE(missed(w));  // all four still there; hits step nothing
    CHECK(missed(4));                                              // 16: way 0, line 0 out
    CHECK(missed(0));                                              // 32: way 0, line 4 out
    CHECK_FALSE(missed(2));
    CHECK(missed(4));  // 64: way 1, line 1 out
    CHECK(missed(1));  // 128: way 2, line 2 out
    CHECK(missed(2));
    CHECK_FALSE(missed(3));
}

TEST_CASE("flash cache: leaving cache mode invalidates every line") {
    FlashCache c(0, 64 * 1024, FlashCacheParameters{});
    CHECK(c.fetch(0x100, 4) == 1 + 2);
    CHECK(c.fetch(0x200, 4) == 1 + 2);
    CHECK(c.fetch(0x100, 4) == 1);  // a hit
    c.enable(false);                // fetch() is not called while off; on again, both lines are gone
    c.enable(true);
    CHECK(c.fetch(0x200, 4) == 1 + 2);
    CHECK(c.fetch(0x100, 4) == 1 + 2);
}
