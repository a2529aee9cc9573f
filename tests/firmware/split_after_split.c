/* An unaligned load or store right behind another, as the CMEmu silicon test ldr_str_unaligned
 * times them on a CC26x2 (cache off, write buffer off; code in flash, data in SRAM): the pipeline
 * emptied by an ISB at a 16-byte boundary, a DWT_CYCCNT read, two 32-bit loads or stores, a second
 * DWT_CYCCNT read. A word at 1 mod 4 is split by the core's aligner into byte, halfword, byte.
 * Each pair is measured with the flash line buffers on and off (VIMS_CTL bits 4 and 5: without
 * them every fetch from flash waits, and the second access is decoded only as the first issues
 * its last part). For tests/emu/split_after_split_test.cpp.
 * Output: "split <case> <cycles>" per case, the second of two passes. */
#include <stdint.h>

#include "cc26x2_vims.h"

static volatile uint32_t data[4] __attribute__((aligned(8))) = {0xDDCCBBAAu, 0x1100FFEEu, 0xFEDACB07u, 0};

/* FIRST and SECOND: two load or store instructions on [r5, #n] (r0 loaded, r1 stored). */
#define PAIR(out, FIRST, SECOND)                                            \
    do {                                                                    \
        register uint32_t dwt_ __asm__("r6") = DWT_BASE;                    \
        register volatile uint32_t *at_ __asm__("r5") = data;               \
        register uint32_t value_ __asm__("r1") = 0x87654321u;               \
        uint32_t t_;                                                        \
        __asm__ volatile(".syntax unified\n\t"                              \
                         ".align 4\n\t"                                     \
                         "isb\n\t"                                          \
                         "ldr.w r2, [r6, #4]\n\t" FIRST "\n\t" SECOND "\n\t" \
                         "ldr.w r3, [r6, #4]\n\t"                           \
                         "subs %0, r3, r2\n\t"                              \
                         : "=r"(t_)                                         \
                         : "r"(dwt_), "r"(at_), "r"(value_)                 \
                         : "r0", "r2", "r3", "cc", "memory");               \
        (out) = t_;                                                         \
    } while (0)

enum { LOAD_SPLIT_ALIGNED, LOAD_SPLIT_SPLIT, STORE_SPLIT_ALIGNED, STORE_SPLIT_SPLIT, PAIRS };

static void measure(uint32_t *cycles)
{
    for (int pass = 0; pass < 2; pass++) {
        PAIR(cycles[LOAD_SPLIT_ALIGNED], "ldr.w r0, [r5, #1]", "ldr.w r0, [r5]");
        PAIR(cycles[LOAD_SPLIT_SPLIT], "ldr.w r0, [r5, #1]", "ldr.w r0, [r5, #1]");
        PAIR(cycles[STORE_SPLIT_ALIGNED], "str.w r1, [r5, #1]", "str.w r1, [r5]");
        PAIR(cycles[STORE_SPLIT_SPLIT], "str.w r1, [r5, #1]", "str.w r1, [r5, #1]");
    }
}

int main(void)
{
    static const char *const names[2 * PAIRS] = {"load_split_aligned_lb",   "load_split_split_lb",   "store_split_aligned_lb",
                                                 "store_split_split_lb",    "load_split_aligned_nolb", "load_split_split_nolb",
                                                 "store_split_aligned_nolb", "store_split_split_nolb"};
    uint32_t cycles[2 * PAIRS];
    measure_with_vims_cache_off();
    SCB_ACTLR |= SCB_ACTLR_DISDEFWBUF;
    measure(cycles);
    VIMS_CTL |= VIMS_CTL_IDCODE_LB_DIS | VIMS_CTL_SYSBUS_LB_DIS;
    measure(cycles + PAIRS);
    print_measurements("split", names, cycles, 2 * PAIRS);
    return 0;
}
