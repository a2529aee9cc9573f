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

TEST_CASE("flash cache: a block fetched again with no line filled since costs and counts what its lookups would") {
    // Lines are 8 bytes: 0x100 is line 32. Each step's figure is the lookups' own: the first line's
    // tag a cycle unless read ahead, the next lines' read ahead, a line still on the bus not looked up.
    FlashCache c(0, 64 * 1024, FlashCacheParameters{});
    CHECK(c.fetch(0x100, 32) == 1 + 4 * 2);  // cold: four misses
    CHECK(c.fetch(0x100, 32) == 1);          // all hit
    CHECK(c.fetch(0x100, 32) == 1);          // again, as nothing was filled since
    CHECK(c.counters().lookups == 12);
    CHECK(c.fetch(0x118, 16) == 2);  // line 35 still on the bus; 36 read ahead, a miss
    CHECK(c.fetch(0x118, 16) == 1);  // 35 not read ahead, both hit
    CHECK(c.fetch(0x110, 8) == 1);   // 34
    CHECK(c.fetch(0x118, 16) == 0);  // 35 read ahead behind 34, 36 behind 35
    CHECK(c.fetch(0x118, 4) == 1);   // 35 alone: its tag not read ahead (37 was)
    CHECK(c.fetch(0x118, 16) == 0);  // 35 on the bus, 36 read ahead
    CHECK(c.counters().lookups == 12 + 1 + 2 + 1 + 2 + 1 + 1);
    CHECK(c.counters().misses == 5);
    CHECK(c.counters().stall_cycles == 9 + 1 + 1 + 2 + 1 + 1 + 0 + 1 + 0);
}
