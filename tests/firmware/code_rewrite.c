/* Code written to SRAM at run time, run, rewritten and run again, for
 * tests/emu/code_rewrite_test.cpp. A store into a page the emulator has translated code from must
 * drop that translation: Unicorn's check for self-modifying code, which
 * emu/detail/unicorn_store_path.cpp keeps while it skips the page-lock tree that check built.
 *
 * The function is `movs r0, #imm` then `bx lr` in a RAM buffer. Each case rewrites the immediate
 * (with a barrier pair, as the architecture asks before running written code) and calls it:
 *   first        written and run
 *   rewritten    its immediate rewritten by a halfword store after it ran
 *   byte         rewritten by a byte store
 *   after_data   after 200 stores to data in the same page (QEMU then keeps a bitmap of the
 *                page's code and lets stores beside it through), rewritten again
 *   loop         rewritten and run 50 times, the immediate each time the loop's count: the sum
 * Output: "rewrite <case> <value returned>" per case (measure.h's format). */
#include <stdint.h>

#include "measure.h"

#define MOVS_R0(imm) ((uint16_t)(0x2000u | ((imm) & 0xffu)))
#define BX_LR ((uint16_t)0x4770u)

/* The code in its first words, data after it: one 256-byte block, inside one of any page size. */
static volatile uint16_t code[128] __attribute__((aligned(256)));

static uint32_t call(void)
{
    __asm volatile("dsb\n\tisb" ::: "memory");
    uint32_t (*function)(void) = (uint32_t (*)(void))((uintptr_t)code | 1u);
    return function();
}

enum { FIRST, REWRITTEN, BYTE, AFTER_DATA, LOOP, CASES };

int main(void)
{
    static const char *const names[CASES] = {"first", "rewritten", "byte", "after_data", "loop"};
    uint32_t returned[CASES];

    code[0] = MOVS_R0(5);
    code[1] = BX_LR;
    returned[FIRST] = call();

    code[0] = MOVS_R0(7);
    returned[REWRITTEN] = call();

    ((volatile uint8_t *)code)[0] = 11; /* the immediate is the low byte */
    returned[BYTE] = call();

    for (uint32_t i = 0; i < 200; i++) code[64 + (i % 32)] = (uint16_t)i;
    code[0] = MOVS_R0(13);
    returned[AFTER_DATA] = call();

    uint32_t sum = 0;
    for (uint32_t k = 0; k < 50; k++) {
        code[0] = MOVS_R0(k);
        sum += call();
    }
    returned[LOOP] = sum;
    print_measurements("rewrite", names, returned, CASES);
    return 0;
}
