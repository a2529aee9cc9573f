// Store multiples to SRAM from code in SRAM and from code in flash, on the cc2652 board:
// tests/firmware/sram_code_stores.c times 2 and 3 STMs in a row; the difference is one STM.
#include <doctest/doctest.h>

#include "support/board_measurements.h"

using namespace emutrace::test;

TEST_CASE("bus matrix: from SRAM code, a fetch latched in a store's data phase costs an STM of two registers a cycle more") {
    auto t = pipeline_measurements("sram_code_stores", "scenarios/boards/cc2652.yaml", "stores", 8);
    INFO(t.text);
    auto one_more = [&](const char* where, const char* registers) {
        return t[std::string(where) + "_" + registers + "_3"] - t[std::string(where) + "_" + registers + "_2"];
    };
    // From flash the stores have the System bus alone: a beat a register and a cycle.
    CHECK(one_more("flash", "2") == 2 + 1);
    // From SRAM each STM's word is fetched over the same bus, 2 cycles through the registration
    // buffer. Behind a one-beat store the fetch goes after its data phase; between two beats it
    // is latched in the first's data phase, that cycle is lost, and it goes before the second
    // (silicon: cc2652 stm_stmdb from SRAM code to SRAM, 3 and 5 cycles a STM).
    CHECK(one_more("sram", "1") == 3);
    CHECK(one_more("sram", "2") == 5);
}
