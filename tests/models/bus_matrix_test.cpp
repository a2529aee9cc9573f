// The bus matrix and the fetch unit on their own: the transfer timing the pipeline model is built
// on (docs/timing.md), with an STM32F100-like memory system: flash whose interface I-Code and
// D-Code share, SRAM whose fetches pass the System bus's registration buffer.

#include <doctest/doctest.h>

#include "models/core.h"
#include "models/memory_system.h"
#include "models/pipeline/bus_matrix.h"
#include "models/pipeline/fetch_unit.h"

using namespace emutrace::models;

namespace {

MemorySystem stm32f100() {
    MemoryPort flash{BusPort::Code, 0, 1, true, true};
    MemoryPort sram{BusPort::System, 0, 2, false, true};
    return MemorySystem({{0x08000000, 128 * 1024, flash}, {0x20000000, 8 * 1024, sram}});
}

// The cycles at which each word from `from` on can be decoded, with the fetch asked every cycle
// and decode taking each word as it comes.
std::vector<std::uint64_t> arrivals(FetchUnit& fetch, std::uint32_t from, unsigned words) {
    std::vector<std::uint64_t> at;
    fetch.redirect(from);
    for (std::uint64_t c = 0; c < 64 && at.size() < words; ++c) {
        fetch.receive(c);
        if (fetch.holds(from, 4)) {
            at.push_back(c);
            fetch.consume(4);
            from += 4;
        }
        fetch.request(c);
        fetch.issue(c);
    }
    return at;
}

// A CC26x2's flash behind its VIMS: 16-byte flash lines at 2 wait states, an 8-byte-line cache
// whose lookups cost a cycle unless the tag was read ahead.
MemoryPort vims_flash() {
    MemoryPort flash{BusPort::Code};
    flash.line_bytes = 16;
    flash.line_wait_states = 2;
    flash.cached = true;
    flash.cache_line_bytes = 8;
    flash.cache_tag_cycles = 1;
    return flash;
}

// A bus on which a data write to `address` went out in cycle 30 (its data phase 31).
BusMatrix bus_after_write(const MemorySystem& memory, std::uint32_t address, DataTransfer kind) {
    BusMatrix bus(memory);
    bus.request(Master::Data, address, 30);
    bus.grant(Master::Data, address, 30, kind);
    return bus;
}

}  // namespace

TEST_CASE("bus matrix: a flash word is decodable two cycles after its address phase, a word a cycle") {
    MemorySystem memory = stm32f100();
    BusMatrix bus(memory);
    FetchUnit fetch(bus);
    auto at = arrivals(fetch, 0x08000100, 4);
    REQUIRE(at.size() == 4);
    CHECK(at[0] == 2);  // address phase 0, data 1, decode 2
    CHECK(at[1] == 3);
    CHECK(at[2] == 4);
}

TEST_CASE("bus matrix: an SRAM word passes the registration buffer: three cycles to decode, a word every two") {
    MemorySystem memory = stm32f100();
    BusMatrix bus(memory);
    FetchUnit fetch(bus);
    auto at = arrivals(fetch, 0x20000100, 3);
    REQUIRE(at.size() == 3);
    CHECK(at[0] == 3);
    CHECK(at[1] == 5);
    CHECK(at[2] == 7);
}

TEST_CASE("bus matrix: on the shared flash interface data goes first, on the System bus the fetch does") {
    MemorySystem memory = stm32f100();
    BusMatrix bus(memory);
    bus.request(Master::Data, 0x08000400, 10);
    bus.request(Master::Fetch, 0x08000100, 10);
    CHECK(bus.may_grant(Master::Data, 0x08000400, 10));
    CHECK_FALSE(bus.may_grant(Master::Fetch, 0x08000100, 10));
    Grant g = bus.grant(Master::Data, 0x08000400, 10);
    CHECK(g.data_end == 11);
    CHECK(bus.may_grant(Master::Fetch, 0x08000100, 11));  // the next address phase overlaps the data phase

    // SRAM data and a flash fetch use different interfaces: no conflict.
    bus.request(Master::Data, 0x20000000, 20);
    bus.request(Master::Fetch, 0x08000100, 20);
    CHECK(bus.may_grant(Master::Data, 0x20000000, 20));
    CHECK(bus.may_grant(Master::Fetch, 0x08000100, 20));
}

TEST_CASE("bus matrix: with addresses held on the bus, the master that waited first for a data phase in wait states goes first") {
    // A flash with 2 wait states that fetches and data share, as the CC2652's VIMS port without line
    // buffers: a fetch asks from cycle 1 while a fetch's data phase (0-2) waits; a load asks from 2.
    MemoryPort flash{BusPort::Code, 2, 1, true, false};
    MemorySystem memory({{0x00000000, 64 * 1024, flash}});
    for (bool holds : {false, true}) {
        BusMatrix bus(memory, PipelineParameters{.fetch_holds_presented_address = holds});
        bus.request(Master::Fetch, 0x100, 0);
        CHECK(bus.grant(Master::Fetch, 0x100, 0).data_end == 3);
        bus.request(Master::Fetch, 0x104, 1);
        CHECK_FALSE(bus.may_grant(Master::Fetch, 0x104, 1));
        for (std::uint64_t c = 2; c <= 3; ++c) {
            bus.request(Master::Data, 0x400, c);
            bus.request(Master::Fetch, 0x104, c);
            CHECK(bus.may_grant(Master::Data, 0x400, c) == (c == 3 && !holds));
            CHECK(bus.may_grant(Master::Fetch, 0x104, c) == (c == 3 && holds));
        }
    }
}

TEST_CASE("bus matrix: a buffered write holds fetches off its interface until its data phase ends") {
    MemorySystem memory = stm32f100();
    BusMatrix bus = bus_after_write(memory, 0x08000000, DataTransfer::Write);
    // A flash fetch shares the flash port: it goes out after the write's data phase.
    CHECK_FALSE(bus.may_grant(Master::Fetch, 0x08000100, 31));
    CHECK(bus.may_grant(Master::Fetch, 0x08000100, 32));
}

TEST_CASE("bus matrix: an SRAM fetch that would reach the bus in a write's data phase is latched, and goes first after it") {
    MemorySystem memory = stm32f100();
    BusMatrix bus = bus_after_write(memory, 0x20000000, DataTransfer::Write);
    // Issued at 30, the registration buffer would present it at 31, inside the data phase: it
    // takes the address anyway and presents it at 32; the store's next beat, asking at 31, waits.
    REQUIRE(bus.may_grant(Master::Fetch, 0x20000100, 30));
    CHECK(bus.grant(Master::Fetch, 0x20000100, 30).data_end == 33);
    bus.request(Master::Data, 0x20000004, 31);
    CHECK_FALSE(bus.may_grant(Master::Data, 0x20000004, 31));
    CHECK_FALSE(bus.may_grant(Master::Data, 0x20000004, 32));
    CHECK(bus.may_grant(Master::Data, 0x20000004, 33));
}

TEST_CASE("bus matrix: an unaligned store's piece holds an SRAM fetch off without latching it") {
    MemorySystem memory = stm32f100();
    BusMatrix bus = bus_after_write(memory, 0x20000000, DataTransfer::WritePiece);
    CHECK_FALSE(bus.may_grant(Master::Fetch, 0x20000100, 30));
    CHECK(bus.may_grant(Master::Fetch, 0x20000100, 31));  // presented at 32
}

TEST_CASE("fetch unit: a B<cc>'s target fetch takes a slot, not taken, its data is dropped and the queue goes on") {
    MemorySystem memory = stm32f100();
    BusMatrix bus(memory);
    FetchUnit fetch(bus);
    fetch.redirect(0x08000100);
    for (std::uint64_t c = 0; c < 2; ++c) {
        fetch.receive(c);
        fetch.request(c);
        fetch.issue(c);
    }
    fetch.speculate(0x08000200);
    fetch.receive(2);
    fetch.request(2);
    fetch.issue(2);  // the target's word goes out instead of 0x08000108
    fetch.resolve(false, 3);
    for (std::uint64_t c = 3; c < 8; ++c) {
        fetch.receive(c);
        fetch.request(c);
        fetch.issue(c);
    }
    CHECK(fetch.head() == 0x08000100);
    CHECK(fetch.holds(0x08000100, 12));  // 0x100, 0x104 and, a cycle late, 0x108
}

TEST_CASE("fetch unit: a branch in execute while a B<cc>'s target is in flight lets that word go with the others") {
    // Found on the CC2652's cbz test: every taken CBZ there left one such word in the queue for
    // good, and the block-cost cache's state keys grew with them.
    MemorySystem memory = stm32f100();
    BusMatrix bus(memory);
    FetchUnit fetch(bus);
    auto in_flight = [&] {
        std::vector<std::uint64_t> key;
        fetch.state_key(key, [](std::uint64_t cycle) { return cycle; });
        return key[12];  // in_flight_.size(), after the 12 scalars before it
    };
    fetch.redirect(0x08000100);
    std::uint64_t c = 0;
    for (; c < 2; ++c) {
        fetch.receive(c);
        fetch.request(c);
        fetch.issue(c);
    }
    fetch.speculate(0x08000200);
    fetch.receive(c);
    fetch.request(c);
    fetch.issue(c);              // the B<cc>'s target goes out
    fetch.redirect(0x08000300);  // an instruction in execute branches before the B<cc> resolves
    for (++c; c < 12; ++c) {
        fetch.receive(c);
        fetch.request(c);
        fetch.issue(c);
        if (fetch.holds(fetch.head(), 4)) fetch.consume(4);
    }
    CHECK(fetch.head() >= 0x08000300);
    CHECK(in_flight() <= 2);  // the words the queue asked for since, not the old target
    fetch.redirect(0x08000400);
    for (std::uint64_t end = c + 4; c < end; ++c) fetch.receive(c);
    CHECK(in_flight() == 0);
}

TEST_CASE("fetch unit: a B<cc>'s target address presented on a busy bus is fetched even when it resolves not taken first (AHB)") {
    // SRAM over the System bus, a word every two cycles: the B<cc>'s target cannot go out in the
    // cycle it is decoded, and it resolves not taken the next. Where the bus holds a presented
    // address (the M4), the target's word is still fetched, and the sequential word waits for it.
    MemorySystem memory = stm32f100();
    auto next_word_at = [&](bool holds_presented) {
        BusMatrix bus(memory);
        FetchUnit fetch(bus, holds_presented);
        fetch.redirect(0x20000100);
        std::uint64_t c = 0;
        for (; c < 3; ++c) {  // 0x100 and 0x104 go out
            fetch.receive(c);
            fetch.request(c);
            fetch.issue(c);
        }
        fetch.speculate(0x20000200);
        fetch.receive(c);
        fetch.request(c);
        fetch.issue(c);  // the bus is busy with 0x104: the target is presented, not taken
        fetch.resolve(false, ++c);
        for (; c < 64 && !fetch.holds(0x20000108, 4); ++c) {
            fetch.receive(c);
            fetch.request(c);
            fetch.issue(c);
        }
        return c;
    };
    const std::uint64_t withdrawn = next_word_at(false), held = next_word_at(true);
    CHECK(held == withdrawn + 2);  // one SRAM word more on the bus before 0x108
}

TEST_CASE("bus matrix: a flash line buffer: a new 16-byte line waits its wait states, none while the buffer holds it, every word without it") {
    MemorySystem memory({{0, 64 * 1024, vims_flash()}});
    auto words = [&](MemoryMode mode) {
        BusMatrix bus(memory);
        bus.set_mode(mode);
        FetchUnit fetch(bus);
        return arrivals(fetch, 0x100, 8);
    };
    // Line buffers on, cache off (CC2652, lbEn): the first word of each line 3 cycles, then 1 a word.
    CHECK(words({false, true}) == std::vector<std::uint64_t>{4, 5, 6, 7, 10, 11, 12, 13});
    // Line buffers off: every word reads the flash (measured on the CC2652: add.w 3 cycles each).
    CHECK(words({false, false}) == std::vector<std::uint64_t>{4, 7, 10, 13, 16, 19, 22, 25});
    // The cache on: its misses are charged beside the pipeline, which times fetches as hits, the
    // first line's tag lookup a cycle, the next lines' tags read ahead.
    CHECK(words({true, true}) == std::vector<std::uint64_t>{3, 4, 5, 6, 7, 8, 9, 10});
}

TEST_CASE("bus matrix: with the cache on, fetches and data reads share its line buffer and its tag read ahead") {
    MemorySystem memory({{0, 64 * 1024, vims_flash()}});
    BusMatrix bus(memory);
    bus.set_mode({true, true});
    CHECK(bus.grant(Master::Fetch, 0x100, 0).data_end == 2);   // a lookup: a cycle for the tag
    CHECK(bus.grant(Master::Fetch, 0x104, 2).data_end == 3);   // the line buffer holds it
    CHECK(bus.grant(Master::Fetch, 0x108, 3).data_end == 4);   // its tag was read ahead
    CHECK(bus.grant(Master::Data, 0x400, 4).data_end == 6);    // a literal: its own lookup
    CHECK(bus.grant(Master::Fetch, 0x110, 6).data_end == 8);   // the fetch's next line lost its tag read ahead
    CHECK(bus.grant(Master::Data, 0x404, 8).data_end == 10);   // and the literal's line its buffer
    CHECK(bus.grant(Master::Data, 0x408, 10).data_end == 11);  // the line after a lookup: read ahead
    bus.set_mode({false, true});                               // the cache off: the flash's 16-byte line buffer again
    CHECK(bus.grant(Master::Data, 0x408, 12).data_end == 15);
    CHECK(bus.grant(Master::Data, 0x40C, 15).data_end == 16);
    // A key tells data reads in two cache lines of one flash line apart.
    CHECK(memory.timing_key(0x400) != memory.timing_key(0x408));
}

TEST_CASE("bus matrix: a line the cache missed waits for the flash on its first read, beside its tag lookup") {
    MemorySystem memory({{0, 64 * 1024, vims_flash()}});
    BusMatrix bus(memory);
    bus.set_mode({true, true});
    bus.cache_missed(0x100);
    bus.cache_missed(0x108);
    bus.cache_missed(0x300);
    CHECK(bus.grant(Master::Fetch, 0x100, 0).data_end == 4);   // a lookup and the flash: 1 + 1 + 2
    CHECK(bus.grant(Master::Fetch, 0x104, 4).data_end == 5);   // the line buffer holds the rest of the line
    CHECK(bus.grant(Master::Fetch, 0x108, 5).data_end == 8);   // tag read ahead: 1 + 2
    CHECK(bus.grant(Master::Fetch, 0x100, 8).data_end == 10);  // filled: a hit, its tag a cycle
    std::vector<std::uint64_t> key, other;
    auto same = [](std::uint64_t c) { return c; };
    bus.state_key(key, same);
    CHECK(bus.grant(Master::Fetch, 0x300, 10).data_end == 14);
    bus.state_key(other, same);
    CHECK(key != other);  // the line still to miss is part of the state
    CHECK(bus.grant(Master::Fetch, 0x300, 14).data_end == 15);
}

TEST_CASE("bus matrix: the tag read ahead goes unused two cycles after a miss's read from the flash ends") {
    MemorySystem memory({{0, 64 * 1024, vims_flash()}});
    // A fetch whose line the cache missed: its read from the flash ends in cycle 4.
    auto after_miss = [&] {
        BusMatrix bus(memory);
        bus.set_mode({true, true});
        bus.cache_missed(0x100);
        CHECK(bus.grant(Master::Fetch, 0x100, 0).data_end == 4);
        return bus;
    };
    // Back to back: the next line's tag was read ahead.
    CHECK(after_miss().grant(Master::Fetch, 0x108, 5).data_end == 6);
    // Two cycles after it ended: looked up again, a cycle.
    CHECK(after_miss().grant(Master::Fetch, 0x108, 6).data_end == 8);
    // Three cycles after: read ahead again, unless the cycle before read the cache RAM for a hit
    // (a lookup the cycle after the miss, not read ahead).
    CHECK(after_miss().grant(Master::Fetch, 0x108, 7).data_end == 8);
    BusMatrix bus = after_miss();
    CHECK(bus.grant(Master::Data, 0x400, 5).data_end == 7);    // a literal's line: a hit, its tag a cycle
    CHECK(bus.grant(Master::Fetch, 0x408, 7).data_end == 9);   // the line after it, three cycles after the miss
    CHECK(bus.grant(Master::Fetch, 0x410, 9).data_end == 10);  // the rule is done with
}

TEST_CASE("bus matrix: fetches and data reads share the flash's line buffer, a key tells their lines apart") {
    MemoryPort flash{BusPort::Code};
    flash.line_bytes = 16;
    flash.line_wait_states = 2;
    MemorySystem memory({{0, 64 * 1024, flash}});
    BusMatrix bus(memory);
    bus.set_mode({false, true});
    CHECK(bus.grant(Master::Data, 0x200, 0).data_end == 3);    // a new line: 1 + 2
    CHECK(bus.grant(Master::Data, 0x204, 4).data_end == 5);    // the same line: held
    CHECK(bus.grant(Master::Fetch, 0x100, 6).data_end == 9);   // the fetch's line displaces it
    CHECK(bus.grant(Master::Data, 0x108, 10).data_end == 11);  // a read of the fetch's line hits
    CHECK(bus.grant(Master::Data, 0x204, 12).data_end == 15);  // the data line is gone
    bus.set_mode({false, false});
    CHECK(bus.grant(Master::Data, 0x204, 16).data_end == 19);  // without line buffers, every read waits
    CHECK(memory.timing_key(0x200) == memory.timing_key(0x204 - 4));
    CHECK(memory.timing_key(0x200) != memory.timing_key(0x210));
}

TEST_CASE("memory system: a region is found by its page, or among those sharing one, and keys the same either way") {
    MemoryPort flash{BusPort::Code, 1};
    flash.line_bytes = 16;
    MemoryPort ram{BusPort::System, 0, 2};
    MemoryPort other{BusPort::System, 3};
    // Two regions share the page at 0x20000000; the flash has its pages alone.
    MemorySystem memory({{0x00000000, 0x02000000, flash}, {0x20000000, 0x1000, ram}, {0x20010000, 0x1000, other}});
    CHECK(memory.at(0x01FFFFFC).wait_states == 1);  // the flash's second page
    CHECK(memory.at(0x20000FFC).fetch_word_cycles == 2);
    CHECK(memory.at(0x20010000).wait_states == 3);
    CHECK(memory.at(0x20001000).port == BusPort::System);  // between them: the architecture's default
    CHECK(memory.at(0x20001000).wait_states == 0);
    CHECK(memory.at(0x02000000).port == BusPort::Code);  // past the flash, in the code region
    CHECK(memory.at(0xE0001004).port == BusPort::Private);
    for (std::uint32_t a : {0x00000100u, 0x0100010Du, 0x20000004u, 0x20010002u, 0x20001000u}) {
        std::uint64_t paged = 0;
        if (memory.paged_timing_key(a, paged)) CHECK(paged == memory.timing_key(a));
    }
    std::uint64_t key = 0;
    CHECK(memory.paged_timing_key(0x0100010D, key));        // alone in its page
    CHECK_FALSE(memory.paged_timing_key(0x20000004, key));  // a shared page: timing_key() searches
    // Memories, alignments, lines and a word that reaches the next line are told apart.
    CHECK(memory.timing_key(0x20000004) != memory.timing_key(0x20010004));
    CHECK(memory.timing_key(0x20000004) != memory.timing_key(0x20000006));
    CHECK(memory.timing_key(0x20000004) == memory.timing_key(0x20000FF0));  // no line buffer: one key per alignment
    CHECK(memory.timing_key(0x100) != memory.timing_key(0x110));
    CHECK(memory.timing_key(0x101) != memory.timing_key(0x10D));  // 16n+13 reaches the next line
    CHECK(memory.timing_key(0x101) == memory.timing_key(0x105));
    CHECK(memory.timing_key(0x20001000) != memory.timing_key(0x20000000));  // the default memory is not the region beside it
}

TEST_CASE("fetch unit: an address the bus holds through a wait-stated data phase is fetched before a branch's target") {
    MemoryPort flash{BusPort::Code, 2};  // every transfer 2 wait states
    MemorySystem memory({{0, 64 * 1024, flash}});
    // The cycle the word at 0x200 can be decoded, after a branch in execute redirects the fetch in
    // cycle 2, while the word at 0x104 waits for 0x100's data phase (cycles 1-3).
    auto target_at = [&](bool after_presented) {
        BusMatrix bus(memory);
        FetchUnit fetch(bus);
        fetch.redirect(0x100);
        for (std::uint64_t c = 0; c < 32; ++c) {
            fetch.receive(c);
            if (fetch.holds(0x200, 4)) return c;
            if (c == 2) fetch.redirect(0x200, false, after_presented);
            fetch.request(c);
            fetch.issue(c);
        }
        return std::uint64_t{0};
    };
    CHECK(target_at(false) == 7);  // address phase 3, data 4-6
    CHECK(target_at(true) == 10);  // 0x104 takes the bus in 3 (data 4-6), the target in 6
}

TEST_CASE("fetch unit: a held address that is the target's own word is the target's fetch, not a word before it") {
    MemoryPort flash{BusPort::Code, 2};
    MemorySystem memory({{0, 64 * 1024, flash}});
    // As above, but the branch goes to 0x104 or 0x106, the word the bus holds.
    auto target_at = [&](std::uint32_t target) {
        BusMatrix bus(memory);
        FetchUnit fetch(bus);
        fetch.redirect(0x100);
        for (std::uint64_t c = 0; c < 32; ++c) {
            fetch.receive(c);
            if (fetch.holds(target, 2)) return c;
            if (c == 2) fetch.redirect(target, false, true);
            fetch.request(c);
            fetch.issue(c);
        }
        return std::uint64_t{0};
    };
    CHECK(target_at(0x104) == 7);  // as soon as the word the bus held: nothing is fetched twice
    CHECK(target_at(0x106) == 7);
    CHECK(target_at(0x108) == 10);  // another word: the held one goes first
}

TEST_CASE("fetch unit: an address the bus holds when execute stops the fetch (TBB, LDR pc) is still fetched, before the target") {
    MemoryPort flash{BusPort::Code, 2};
    MemorySystem memory({{0, 64 * 1024, flash}});
    // Execute stops the fetch in cycle 2, while the word at 0x104 waits for 0x100's data phase
    // (cycles 1-3); the table's target is known in cycle 4.
    auto target_at = [&](bool holds_presented) {
        BusMatrix bus(memory);
        FetchUnit fetch(bus, holds_presented);
        fetch.redirect(0x100);
        for (std::uint64_t c = 0; c < 32; ++c) {
            fetch.receive(c);
            if (fetch.holds(0x200, 4)) return c;
            if (c == 2) fetch.disable(c);
            if (c == 4) fetch.redirect(0x200);
            fetch.request(c);
            fetch.issue(c);
        }
        return std::uint64_t{0};
    };
    CHECK(target_at(false) == 8);  // address phase 4, data 5-7
    CHECK(target_at(true) == 10);  // 0x104 took the bus in 3 (data 4-6), the target in 6
}

// What the per-block model charges where the pipeline's bus matrix is not run (timing: trm).
TEST_CASE("memory system: an aligned access is timed as at its word, a misaligned one where it is") {
    for (std::uint32_t a : {0x20000100u, 0x20000101u, 0x20000102u, 0x20000103u}) CHECK(timing_address(a, 1) == 0x20000100u);
    CHECK(timing_address(0x20000102u, 2) == 0x20000100u);
    CHECK(timing_address(0x20000103u, 2) == 0x20000103u);  // split in two: its low bits time it
    CHECK(timing_address(0x20000104u, 4) == 0x20000104u);
    CHECK(timing_address(0x20000106u, 4) == 0x20000106u);
    // Each misalignment costs what its own low bits say, and every aligned one nothing.
    for (std::uint32_t a = 0x20000100u; a < 0x20000108u; ++a)
        for (unsigned size : {1u, 2u, 4u}) CHECK(unaligned_transfer_extra(timing_address(a, size), size, 0) == unaligned_transfer_extra(a, size, 0));
}

TEST_CASE("memory system: an unaligned access costs the aligned transfers the core splits it into") {
    CHECK(unaligned_transfer_extra(0x20000000, 4, 0) == 0);  // aligned: one transfer
    CHECK(unaligned_transfer_extra(0x20000001, 4, 0) == 2);  // byte, halfword, byte
    CHECK(unaligned_transfer_extra(0x20000003, 4, 0) == 2);
    CHECK(unaligned_transfer_extra(0x20000002, 4, 0) == 1);  // two halfwords
    CHECK(unaligned_transfer_extra(0x20000001, 2, 0) == 1);  // two bytes
    CHECK(unaligned_transfer_extra(0x20000001, 1, 0) == 0);  // a byte is never unaligned
    CHECK(unaligned_transfer_extra(0x20000001, 4, 2) == 6);  // each extra transfer waits too
    CHECK(fetch_wait(0, 1) == 0);
    CHECK(fetch_wait(0, 2) == 1);  // SRAM over the System bus: a word every two cycles
    CHECK(fetch_wait(2, 1) == 2);
}

TEST_CASE("fetch unit: a branch held at decode fetches its target's word on the M3, and the word after it too on the M4") {
    // A B at decode behind a multi-cycle instruction (CMEmu's HoldBranch): the fetch stops after
    // the core's held words until execute takes the branch (release()).
    MemorySystem memory = stm32f100();
    auto words_while_held = [&](unsigned held_words) {
        BusMatrix bus(memory);
        FetchUnit fetch(bus, false, held_words);
        fetch.redirect(0x08000100, true);
        for (std::uint64_t c = 0; c < 32; ++c) {
            fetch.receive(c);
            fetch.request(c);
            fetch.issue(c);
        }
        return (fetch.next_word() - 0x08000100) / 4;
    };
    CHECK(words_while_held(1) == 1);  // the M3's
    CHECK(words_while_held(2) == 2);  // the M4's
    CHECK(PipelineParameters{}.held_branch_fetch_words == 1);
    CHECK(core_spec(CoreKind::CortexM4F).pipeline.held_branch_fetch_words == 2);
    CHECK(core_spec(CoreKind::CortexM3).pipeline.held_branch_fetch_words == 1);
}

TEST_CASE("fetch unit: a held branch entering execute still fills the decode register: with two target words in, the third waits a cycle") {
    // CMEmu's PIQ: six halfword slots, two of them the decode register's while it holds anything.
    // A branch held at decode keeps it through the cycle it enters execute (`release()`), so with
    // the M4's two held words in the queue there is no room for a third that cycle. Measured on the
    // CC2652 (piq_narrow_b_to_unaligned): with line buffers, the line after the held words came a
    // cycle earlier in the model than on silicon wherever the measurement reached it.
    MemorySystem memory({{0, 64 * 1024, MemoryPort{BusPort::Code}}});
    auto third_word_at = [&](unsigned held_words) {
        BusMatrix bus(memory);
        FetchUnit fetch(bus, true, held_words);
        fetch.redirect(0x100, true);
        for (std::uint64_t c = 0; c < 32; ++c) {
            fetch.receive(c);
            if (fetch.holds(0x108, 4)) return c;
            if (c == 6) fetch.release();  // the held branch enters execute
            fetch.request(c);
            fetch.issue(c);
        }
        return std::uint64_t{0};
    };
    CHECK(third_word_at(2) == 9);  // asked for in 7, the cycle after: address phase 7, data 8
    CHECK(third_word_at(1) == 9);  // the second word goes out in 6 (room beside the register), the third in 7
}

TEST_CASE("fetch unit: a branch at decode to a word already queued goes on from the queue, not from a second fetch") {
    // Measured on the CC2652 (piq_narrow_b_to_unaligned, B.N over one or two halfwords behind a
    // short UDIV, line buffers on): fetched again, the target's word came as a line miss after the
    // next line displaced it, and the model was 1 or 2 cycles long.
    MemoryPort flash{BusPort::Code, 2};
    MemorySystem memory({{0, 64 * 1024, flash}});
    BusMatrix bus(memory);
    FetchUnit fetch(bus);
    fetch.redirect(0x100);
    std::uint64_t c = 0;
    for (; !fetch.holds(0x100, 8); ++c) {  // 0x100 and 0x104 in, 0x108 on the bus
        fetch.receive(c);
        fetch.request(c);
        fetch.issue(c);
    }
    CHECK_FALSE(fetch.redirect_within_queue(0x102, 0x100, false));  // the branch's own word: fetched again
    CHECK_FALSE(fetch.redirect_within_queue(0x10c, 0x100, false));  // not queued yet
    const std::uint32_t epoch = fetch.epoch();
    REQUIRE(fetch.redirect_within_queue(0x106, 0x100, false));
    CHECK(fetch.head() == 0x106);
    CHECK(fetch.holds(0x106, 2));
    CHECK(fetch.epoch() != epoch);  // what decode held before the branch is gone
    for (std::uint64_t end = c + 8; c < end && !fetch.holds(0x106, 6); ++c) {
        fetch.receive(c);
        fetch.request(c);
        fetch.issue(c);
    }
    CHECK(fetch.holds(0x106, 6));  // the word that was in flight is kept
}
