/* Store multiples to SRAM, timed from code in SRAM and from code in flash, for
 * tests/emu/sram_code_stores_test.cpp. From SRAM the fetch and the stores share the System bus,
 * and the fetch passes the core's registration buffer; from flash they meet nowhere.
 *
 * Each case runs 2 and then 3 `stm.w` in a row to 16 bytes below the stack (the difference is one
 * STM in the steady state), each timed twice; the second is reported.
 * Output: "stores <where>_<registers>_<count> <cycles>" per case. */
#include <stdint.h>

#include "measure.h"

#define STM1 "stm.w r3, {r4}\n\t"
#define STM2 "stm.w r3, {r4, r5}\n\t"
/* The STMs word-aligned, as CMEmu's tests place them: the counter read before them (16-bit) on a
 * word boundary, a 16-bit NOP after it. */
#define TIMED(out, BODY) MEASURE(out, 0, "sub sp, #16\n\tmov r3, sp\n\t.p2align 2\n\t", "nop\n\t" BODY, "add sp, #16\n\t")

enum { ONE_2, ONE_3, TWO_2, TWO_3, CASES };

#define MEASURE_ALL(results)                                    \
    do {                                                        \
        for (int pass = 0; pass < 2; pass++) {                  \
            TIMED((results)[ONE_2], STM1 STM1);                 \
            TIMED((results)[ONE_3], STM1 STM1 STM1);            \
            TIMED((results)[TWO_2], STM2 STM2);                 \
            TIMED((results)[TWO_3], STM2 STM2 STM2);            \
        }                                                       \
    } while (0)

__attribute__((section(".ramfunc"), noinline)) static void from_sram(uint32_t *results)
{
    MEASURE_ALL(results);
}

__attribute__((noinline)) static void from_flash(uint32_t *results)
{
    MEASURE_ALL(results);
}

int main(void)
{
    static const char *const sram_names[CASES] = {"sram_1_2", "sram_1_3", "sram_2_2", "sram_2_3"};
    static const char *const flash_names[CASES] = {"flash_1_2", "flash_1_3", "flash_2_2", "flash_2_3"};
    uint32_t sram[CASES], flash[CASES];
    COREDEBUG_DEMCR |= COREDEBUG_DEMCR_TRCENA;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    from_sram(sram);
    from_flash(flash);
    print_measurements("stores", sram_names, sram, CASES);
    print_measurements("stores", flash_names, flash, CASES);
    return 0;
}
