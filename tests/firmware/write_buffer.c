/* ACTLR as the core's timing follows it: a store, then three ALU instructions (a load right behind
 * would wait for the store's data phase either way), measured with the
 * write buffer on (the reset state), with it off (DISDEFWBUF), and an IT behind a 16-bit
 * instruction with folding on and off (DISFOLD). On memory with wait states a store leaves
 * execute with its address phase only while the buffer is on; at zero wait states it makes no
 * difference (the STM32F100 compiled set measures the same with wbEn true and false).
 * Output: "timing <name> <delta>" lines, as dwt_timing.c's. */
#include <stdint.h>

#include "measure.h"

enum { T_STR_BUFFERED, T_STR_UNBUFFERED, T_IT_FOLDED, T_IT_UNFOLDED, T_COUNT };
static const char *const names[T_COUNT] = {"str_buffered", "str_unbuffered", "it_folded", "it_unfolded"};
static uint32_t results[T_COUNT];

#define STORE_THEN_ALU "str r2, [r3]\n\t" "adds r4, #1\n\t" "adds r4, #1\n\t" "adds r4, #1\n\t"
#define CMP_IT_ADD "cmp r2, #2\n\t" "it ne\n\t" "addne r4, r4, r2\n\t"

__attribute__((noinline)) static void run_measurements(void)
{
    MEASURE_BELOW_SP(results[T_STR_BUFFERED], STORE_THEN_ALU);
    MEASURE(results[T_IT_FOLDED], 0, "movs r2, #1\n\t", CMP_IT_ADD, "");
    SCB_ACTLR |= SCB_ACTLR_DISDEFWBUF | SCB_ACTLR_DISFOLD;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    MEASURE_BELOW_SP(results[T_STR_UNBUFFERED], STORE_THEN_ALU);
    MEASURE(results[T_IT_UNFOLDED], 0, "movs r2, #1\n\t", CMP_IT_ADD, "");
    SCB_ACTLR &= ~(SCB_ACTLR_DISDEFWBUF | SCB_ACTLR_DISFOLD);
}

int main(void)
{
    dwt_cyccnt_start();
    run_measurements();
    print_measurements("timing", names, results, T_COUNT);
    return 0;
}
