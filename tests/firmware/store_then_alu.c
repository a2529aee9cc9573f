/* A store followed by an ALU instruction, four times, and a store followed by a NOP, timed from
 * flash with the write buffer off (ACTLR.DISDEFWBUF, as the CMEmu silicon tests run), for
 * tests/emu/store_then_alu_test.cpp. Built for the Cortex-M3 (STM32F100 preset) and the
 * Cortex-M4 (CC2652 preset): on the M4 only a load, a store or a NOP enters execute in a store's
 * data phase, on the M3 any instruction does. And a store followed by a STRD, four times, against
 * a store, a NOP and a STRD: on the M4 a dual store waits for the data phase as the NOP's cycle
 * does; on the M3 it overlaps the data phase, and the NOP costs its cycle.
 * Output: "pairs <name> <cycles>" per case. */
#include <stdint.h>

#include "measure.h"

#define STORE_ALU "str.w r4, [r3]\n\tadd.w r5, r5, #1\n\t"
#define STORE_NOP "str.w r4, [r3]\n\tnop.w\n\t"
#define STORE_STRD "str.w r4, [r3]\n\tstrd r4, r5, [r3, #8]\n\t"
#define STORE_NOP_STRD "str.w r4, [r3]\n\tnop.w\n\tstrd r4, r5, [r3, #8]\n\t"

int main(void)
{
    static const char *const names[4] = {"store_alu", "store_nop", "store_strd", "store_nop_strd"};
    uint32_t cycles[4];
    COREDEBUG_DEMCR |= COREDEBUG_DEMCR_TRCENA;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    SCB_ACTLR |= SCB_ACTLR_DISDEFWBUF;
    for (int pass = 0; pass < 2; pass++) {
        MEASURE_BELOW_SP(cycles[0], STORE_ALU STORE_ALU STORE_ALU STORE_ALU);
        MEASURE_BELOW_SP(cycles[1], STORE_NOP STORE_NOP STORE_NOP STORE_NOP);
        MEASURE_BELOW_SP(cycles[2], STORE_STRD STORE_STRD STORE_STRD STORE_STRD);
        MEASURE_BELOW_SP(cycles[3], STORE_NOP_STRD STORE_NOP_STRD STORE_NOP_STRD STORE_NOP_STRD);
    }
    print_measurements("pairs", names, cycles, 4);
    return 0;
}
