/* A store leaving execute in the cycle a conditional branch behind it is in
 * decode: the store's data phase runs on in the write buffer, so the branch's
 * target fetch goes out at decode as behind any one-cycle instruction. Seen
 * on the STM32F100 (compiled benchmark ti_msp430 8-bit_2-dim_matrix -Os:
 * a loop ending strb.w; bne measures 2 cycles an iteration less than a model
 * that held the branch behind the store). Each pair measures the same
 * sequence with the store and with an ALU instruction in its place.
 *
 * Output: "timing <name> <delta>" lines, as dwt_timing.c's. */
#include <stdint.h>

#include "measure.h"

enum { T_STR_BNE, T_ADD_BNE, T_STRB_W_BNE, T_ADD_W_BNE, T_STR_BNE_NOT, T_ADD_BNE_NOT, T_COUNT };
static const char *const names[T_COUNT] = {"str_bne", "add_bne", "strb_w_bne", "add_w_bne", "str_bne_not", "add_bne_not"};
static uint32_t results[T_COUNT];

__attribute__((noinline)) static void run_measurements(void)
{
    /* Taken: r3 (the stack) is not 0. */
    MEASURE_BELOW_SP(results[T_STR_BNE], "cmp r3, #0\n\t" "str r2, [r3]\n\t" "bne 1f\n\t" "nop\n" "1:\n\t");
    MEASURE_BELOW_SP(results[T_ADD_BNE], "cmp r3, #0\n\t" "adds r2, #1\n\t" "bne 1f\n\t" "nop\n" "1:\n\t");
    MEASURE_BELOW_SP(results[T_STRB_W_BNE], "cmp r3, #0\n\t" "strb.w r2, [r3, #1]\n\t" "bne 1f\n\t" "nop\n" "1:\n\t");
    MEASURE_BELOW_SP(results[T_ADD_W_BNE], "cmp r3, #0\n\t" "add.w r2, r2, #1\n\t" "bne 1f\n\t" "nop\n" "1:\n\t");
    /* Not taken. */
    MEASURE_BELOW_SP(results[T_STR_BNE_NOT], "cmp r3, r3\n\t" "str r2, [r3]\n\t" "bne 1f\n\t" "nop\n" "1:\n\t");
    MEASURE_BELOW_SP(results[T_ADD_BNE_NOT], "cmp r3, r3\n\t" "adds r2, #1\n\t" "bne 1f\n\t" "nop\n" "1:\n\t");
}

int main(void)
{
    dwt_cyccnt_start();
    run_measurements();
    print_measurements("timing", names, results, T_COUNT);
    return 0;
}
