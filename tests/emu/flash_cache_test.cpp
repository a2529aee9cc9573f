// The cc2652 board's flash cache (models/flash_cache.h) on firmware: tests/firmware/flash_cache.c
// times passes over code that fits the 8 KiB cache and code that does not, on the board as it is
// and on the same board without its cache.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "emu/peripherals/registry.h"
#include "emutrace/config.h"
#include "support/run_firmware.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

// "pass <name> <n> <cycles>" lines: each body's cycles per pass.
std::map<std::string, std::vector<std::uint64_t>> passes(const std::string& text) {
    std::map<std::string, std::vector<std::uint64_t>> out;
    std::istringstream in(text);
    std::string word, name;
    unsigned n = 0;
    std::uint64_t cycles = 0;
    while (in >> word >> name >> n >> cycles)
        if (word == "pass") out[name].push_back(cycles);
    return out;
}

FirmwareRun run_on_cc2652(emu::TimingMode timing, bool cache) {
    return run_firmware("flash_cache", "scenarios/boards/cc2652.yaml", [&](emu::MachineConfig& c) {
        c.timing = timing;
        for (auto& r : c.memory)
            if (!cache) r.cache.reset();
    });
}

// The firmware on the preset with its cache and without: each body's passes, and the first run.
struct CachedAndPlain {
    FirmwareRun cached;
    std::map<std::string, std::vector<std::uint64_t>> with, without;
};
CachedAndPlain run_both(emu::TimingMode timing) {
    CachedAndPlain r{run_on_cc2652(timing, true), {}, {}};
    FirmwareRun plain = run_on_cc2652(timing, false);
    REQUIRE(r.cached.result.exit_code == 0);
    REQUIRE(plain.result.exit_code == 0);
    CHECK(plain.result.flash_cache.lookups == 0);
    r.with = passes(r.cached.sink.text);
    r.without = passes(plain.sink.text);
    return r;
}

}  // namespace

TEST_CASE("flash cache, per-block model: code that fits misses once, code that does not on every pass, a miss a stall") {
    auto [cached, with, without] = run_both(emu::TimingMode::Trm);
    REQUIRE(with["fits"].size() == 4);
    REQUIRE(with["too_big"].size() == 4);
    REQUIRE(without["fits"].size() == 4);
    // Without a cache the flash is zero-wait memory: every pass alike.
    for (auto cycles : without["fits"]) CHECK(cycles == without["fits"][0]);
    for (auto cycles : without["too_big"]) CHECK(cycles == without["too_big"][0]);
    // 2 KiB of sequential code: 256 lines of 8 bytes, each a miss at 2 cycles, their tags
    // prefetched. Then it is all hits.
    const std::uint64_t fits = without["fits"][0], too_big = without["too_big"][0];
    CHECK(with["fits"][0] >= fits + 512);
    CHECK(with["fits"][0] <= fits + 512 + 16);
    for (std::size_t pass = 1; pass < 4; ++pass) {
        CHECK(with["fits"][pass] >= fits);
        CHECK(with["fits"][pass] <= fits + 8);
    }
    // 12 KiB through 8 KiB of 4 ways: the first pass misses on every line; the later ones keep
    // some, the pseudo-random way a full set evicts sparing others, but lose at least half.
    CHECK(with["too_big"][0] >= too_big + 12 * 1024 / 8 * 2);
    CHECK(with["too_big"][0] <= too_big + 12 * 1024 / 8 * 2 + 64);
    for (std::size_t pass = 1; pass < 4; ++pass) {
        CHECK(with["too_big"][pass] >= too_big + 12 * 1024 / 8);
        CHECK(with["too_big"][pass] <= too_big + 12 * 1024 / 8 * 2 - 64);
    }
    const auto& c = cached.result.flash_cache;
    CHECK(c.misses > 12 * 1024 / 8 + 3 * 12 * 1024 / 16);
    // Every miss costs miss_cycles, a lookup not read ahead a cycle, and the run's stall includes them.
    CHECK(c.stall_cycles >= c.misses * 2);
    CHECK(c.stall_cycles <= c.misses * 2 + c.lookups);
    CHECK(cached.result.stall_cycles >= c.stall_cycles);
}

TEST_CASE("flash cache, pipeline: a miss is a fetch's wait for the flash, which the prefetch queue hides where the code is dense enough") {
    auto [cached, with, without] = run_both(emu::TimingMode::Pipeline);
    for (const char* body : {"fits", "too_big", "wide"}) {
        CAPTURE(body);
        REQUIRE(with[body].size() == 4);
        REQUIRE(without[body].size() == 4);
    }
    const auto& c = cached.result.flash_cache;
    CHECK(c.misses > 12 * 1024 / 8 + 3 * 12 * 1024 / 16);  // too_big misses on every pass, as with the per-block model
    CHECK(c.stall_cycles == 0);                            // the pipeline's bus times them
    // A missed line's first word waits 2 cycles more, its second comes from the cache's line buffer:
    // 8 bytes in 4 cycles, as fast as four 16-bit NOPs run. Their misses are hidden, thrashing or not.
    for (std::size_t pass = 0; pass < 4; ++pass) {
        CAPTURE(pass);
        CHECK(with["fits"][pass] >= without["fits"][pass]);
        CHECK(with["fits"][pass] <= without["fits"][pass] + 8);
        CHECK(with["too_big"][pass] >= without["too_big"][pass]);
        CHECK(with["too_big"][pass] <= without["too_big"][pass] + 16);
    }
    // Two 32-bit NOPs run in 2 cycles: each of the 512 lines of `wide` costs 2 more on its first pass.
    CHECK(with["wide"][0] >= without["wide"][0] + 1024);
    CHECK(with["wide"][0] <= without["wide"][0] + 1024 + 16);
    for (std::size_t pass = 1; pass < 4; ++pass) CHECK(with["wide"][pass] <= without["wide"][pass] + 8);
}

TEST_CASE("flash cache: with the pipeline, a load from the cached flash looks its tag up and takes the fetch's line buffer and tag read ahead") {
    auto [cached, with, without] = run_both(emu::TimingMode::Pipeline);
    REQUIRE(with["literals_flash"].size() == 4);
    REQUIRE(with["literals_sram"].size() == 4);
    for (std::size_t pass = 1; pass < 4; ++pass) {  // warm: every line a hit
        CAPTURE(pass);
        // Zero-wait flash without the cache: a load from either memory costs alike.
        CHECK(without["literals_flash"][pass] == without["literals_sram"][pass]);
        // With it, each of the 64 flash loads looks up a line whose tag was not read ahead: a cycle,
        // and the code line after it may lose its own read-ahead, which the prefetch queue hides
        // (mostly: the code's alignment moves it by a few cycles).
        CHECK(with["literals_flash"][pass] >= with["literals_sram"][pass] + 48);
        CHECK(with["literals_flash"][pass] <= with["literals_sram"][pass] + 2 * 64);
    }
}

TEST_CASE("flash cache: with the pipeline, a table read from the flash misses as code does, where the cache cannot hold it") {
    auto [cached, with, without] = run_both(emu::TimingMode::Pipeline);
    REQUIRE(with["table_fits"].size() == 4);
    REQUIRE(with["table_too_big"].size() == 4);
    for (std::size_t pass = 1; pass < 4; ++pass) {
        CAPTURE(pass);
        // 2048 reads, each a tag lookup that takes the line buffer from the loop's code, whose line
        // is looked up again: at most 3 cycles a read while the table's first KiB stays cached.
        const std::uint64_t fits = with["table_fits"][pass] - without["table_fits"][pass];
        const std::uint64_t too_big = with["table_too_big"][pass] - without["table_too_big"][pass];
        CHECK(fits <= 3 * 2048 + 128);
        // 16 KiB through 8 KiB: a quarter of its reads or more miss, 2 cycles each, on every pass
        // (the pseudo-random replacement keeps some lines; without the reads looked up, the
        // larger table costs 2,000 cycles less than the small one here).
        CHECK(too_big >= fits + 2 * 2048 / 4);
    }
}

TEST_CASE("flash cache: the VIMS mode turns the cache off, the pipeline then times the flash's line buffer, or every word without it") {
    // The preset's `vims` device at reset as firmware leaves it with VIMS_CTL's mode off (3),
    // with and without the line-buffer disable bits (0x30).
    auto run = [](std::uint32_t ctl) {
        return run_firmware("flash_cache", "scenarios/boards/cc2652.yaml", [&](emu::MachineConfig& c) {
            for (auto& d : c.devices)
                if (d.type == "ti.vims") {
                    auto root = config::Node::load_string("type: ti.vims\nparams: {ctl: " + std::to_string(ctl) + "}\n", "v.yaml");
                    d.model = emu::make_peripheral(root["type"], root["params"]);
                }
        });
    };
    FirmwareRun buffered = run(0x3), unbuffered = run(0x33), plain = run_on_cc2652(emu::TimingMode::Pipeline, false);
    REQUIRE(buffered.result.exit_code == 0);
    REQUIRE(unbuffered.result.exit_code == 0);
    CHECK(buffered.result.flash_cache.lookups == 0);
    CHECK(unbuffered.result.flash_cache.lookups == 0);
    auto with = passes(buffered.sink.text), without = passes(unbuffered.sink.text), zero = passes(plain.sink.text);
    REQUIRE(with["fits"].size() == 4);
    REQUIRE(without["fits"].size() == 4);
    const std::uint64_t fits = zero["fits"][0];
    for (std::size_t pass = 0; pass < 4; ++pass) {
        CAPTURE(pass);
        // 1024 NOPs: 128 flash lines, each 3 cycles for its first word and 1 for the next three,
        // 6 cycles for 8 NOPs: the prefetch queue hides the misses. Without line buffers each
        // word takes 3 cycles for 2 NOPs: 512 more.
        CHECK(with["fits"][pass] >= fits);
        CHECK(with["fits"][pass] <= fits + 16);
        CHECK(without["fits"][pass] >= fits + 512);
        CHECK(without["fits"][pass] <= fits + 512 + 16);
    }
}
