// Code the firmware writes to SRAM, runs, and rewrites: each run sees what was written last.
// tests/firmware/code_rewrite.c rewrites a `movs r0, #imm` by halfword and byte stores, after many
// stores beside it, and in a loop. Unicorn's check for self-modifying code drops the translation;
// emu/detail/unicorn_store_path.cpp skips the page-lock tree that check builds, and must not
// skip the check.
#include <doctest/doctest.h>

#include "emu/detail/unicorn_store_path.h"
#include "support/measurements.h"
#include "support/run_firmware.h"

using namespace emutrace;
using namespace emutrace::test;

TEST_CASE("code rewritten in SRAM runs as rewritten, with the store path's page-lock tree skipped, in every timing mode") {
    for (auto timing : {emu::TimingMode::None, emu::TimingMode::Trm, emu::TimingMode::Pipeline}) {
        CAPTURE(static_cast<int>(timing));
        FirmwareRun run = run_firmware("code_rewrite", "", [timing](emu::MachineConfig& c) { c.timing = timing; });
        // This process's Unicorn calls the pair defined here (the test binary links the modules,
        // as the emutrace command's library does), so the tree was skipped on every store.
        CHECK(emu::detail::unicorn_store_path_without_page_locks());
        REQUIRE(run.result.exit_code == 0);
        auto v = timings(run.sink.text, "rewrite");
        REQUIRE(v.size() == 5);
        CHECK(v["first"] == 5);
        CHECK(v["rewritten"] == 7);
        CHECK(v["byte"] == 11);
        CHECK(v["after_data"] == 13);
        CHECK(v["loop"] == 49 * 50 / 2);
    }
}
