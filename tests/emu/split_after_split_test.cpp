// An access the aligner splits, right behind another: tests/firmware/split_after_split.c times
// CMEmu's ldr_str_unaligned pairs on the cc2652 board (cache off, write buffer off).
#include <doctest/doctest.h>

#include "support/board_measurements.h"

using namespace emutrace::test;

TEST_CASE("pipeline: a split access decoded as the split one before it issues its last part follows a cycle later") {
    auto t = pipeline_measurements("split_after_split", "scenarios/boards/cc2652.yaml", "split", 8);
    INFO(t.text);
    // Silicon (CMEmu cc2652 ldr_str_unaligned, code in flash, data in SRAM): a word at 1 mod 4
    // behind another costs its two extra parts on top of an aligned word there, with the flash
    // line buffers on (7 and 9 cycles between the DWT_CYCCNT reads) and off (9 and 11). With them
    // off, the second access's fetch arrives as the first issues its last part, and entering in
    // that part's data phase hid one of the two: 10.
    for (const char* kind : {"load", "store"}) {
        CAPTURE(kind);
        const std::string k = kind;
        CHECK(t[k + "_split_aligned_lb"] == 7);
        CHECK(t[k + "_split_split_lb"] == 9);
        CHECK(t[k + "_split_aligned_nolb"] == 9);
        CHECK(t[k + "_split_split_nolb"] == t[k + "_split_aligned_nolb"] + 2);
    }
}
