// A run of writeback loads on one base: tests/firmware/writeback_loads.c times CMEmu's ldm_ldmdb
// sequence on the cc2652 board (flash with line buffers, cache off, data in SRAM).
#include <doctest/doctest.h>

#include "support/board_measurements.h"

using namespace emutrace::test;

TEST_CASE("pipeline: a written-back base is forwarded to the next load unless it came through the forwarding path itself") {
    auto t = pipeline_measurements("writeback_loads", "scenarios/boards/cc2652.yaml", "writeback", 9);
    INFO(t.text);
    // Silicon (CMEmu cc2652 ldm_ldmdb, `ldr.w r8, [r1], #4` from flash with line buffers to SRAM):
    // 4, 5, 7, 9 cycles for one to four loads from one DWT_CYCCNT read to the next. The second
    // load gets the base the first wrote back and enters in its data phase; the third's base
    // came from the second through the forwarding path, and it waits a cycle, as every later one.
    CHECK(t["one"] == 4);
    CHECK(t["two"] == t["one"] + 1);
    CHECK(t["three"] == t["two"] + 2);
    CHECK(t["four"] == t["three"] + 2);
    // Behind an ALU instruction the first load went from decode to execute at once, its new base
    // generated as it entered: the second waits (silicon: CMEmu cc2652
    // ldr_ldm_ldmdb_ldrd_same_args_and_rings, `add.w` then `ldr.w r6, [r5, #4]!` and
    // `ldr.w r6, [r5, #-4]!` in turn: 7, 9 and 13 cycles for one, two and four).
    CHECK(t["behind_alu_one"] == 7);
    CHECK(t["behind_alu_two"] == t["behind_alu_one"] + 2);
    CHECK(t["behind_alu_four"] == 13);
}

TEST_CASE("pipeline: on the M4 a store that writes its base back enters in the data phase of the load before it") {
    auto t = pipeline_measurements("writeback_loads", "scenarios/boards/cc2652.yaml", "writeback", 9);
    INFO(t.text);
    // Silicon (CMEmu cc2652 ldr_writeback_pipelining, flash with line buffers to SRAM):
    // `ldr.w r7, [r6, #4]!` then `str.w r8, [r4]` or `str.w r8, [r4, #4]!`, 5 cycles from one
    // DWT_CYCCNT read to the next either way; the store held out of the load's data phase: 6.
    CHECK(t["load_store"] == 5);
    CHECK(t["load_store_writeback"] == t["load_store"]);
}
