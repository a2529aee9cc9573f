// A B<cc> decoded while the load before it is in execute: tests/firmware/branch_behind_load.c
// times CMEmu's bcond sequence on the cc2652 board (flash with line buffers, cache off).
#include <doctest/doctest.h>

#include "support/board_measurements.h"

using namespace emutrace::test;

TEST_CASE("pipeline: a B<cc> behind a load sends its target fetch as it is decoded, as a B does") {
    auto t = pipeline_measurements("branch_behind_load", "scenarios/boards/cc2652.yaml", "branch", 4);
    INFO(t.text);
    // Silicon (CMEmu cc2652 bcond, flash with line buffers): `ldr.w; b.n` and `ldr.w; bne.n`
    // taken both 5 cycles from one DWT_CYCCNT read to the next. A B<cc> that waited for the
    // load's data phase to fetch its target lost the flash line the sequential fetch took
    // meanwhile: 8.
    CHECK(t["b"] == 5);
    CHECK(t["bne_taken"] == t["b"]);
    // Not taken, it runs the four instructions it would have jumped over.
    CHECK(t["beq_not_taken"] > t["bne_taken"] + 4);
}

TEST_CASE("pipeline: a B<cc> its IT block fails, decoded while the IT executes, fetches no target") {
    auto t = pipeline_measurements("branch_behind_load", "scenarios/boards/cc2652.yaml", "branch", 4);
    INFO(t.text);
    // Silicon (CMEmu cc2652 it_fold_after_skipped_branch, flash with line buffers): `it ne;
    // bne.n` failing, then `it eq; addeq.w; add.w`: 7 cycles from one DWT_CYCCNT read to the
    // next. A target fetch that went out and was dropped would have cost the line: 8.
    CHECK(t["it_bne_failing"] == 7);
}
