/* Cycle counts of fixed instruction sequences, read from DWT_CYCCNT, for
 * an exact comparison against emutrace's timing model.
 *
 * Each measurement is one asm block with fixed registers:
 *   r6      DWT base (0xE0001000), set by the compiler before the block
 *   r0      CYCCNT at the start: ldr r0, [r6, #4]
 *   r1      CYCCNT at the end:   ldr r1, [r6, #4]
 *   r2-r5   operands of the sequence under test
 * Operand set-up comes before the first read and any clean-up after the
 * second, so the measured region is the first read, the sequence and the
 * second read, with no branch in it except in the b_* cases. The printed
 * delta is r1 - r0.
 *
 * The event counters (CPICNT, LSUCNT, FOLDCNT) are measured the same way,
 * reading the counter's offset instead of CYCCNT's.
 *
 * Output: one line "timing <name> <delta>" per measurement, in order, then
 * one line "counter <name> <delta>" per event-counter measurement. */
#include <stdint.h>

#include "cortex_m.h"
#include "measure.h"
#include "print.h"

enum {
    T_NOP8,
    T_ALU8,
    T_MUL4,
    T_MLA2,
    T_LDR1,
    T_LDR4,
    T_STR4,
    T_LDM4,
    T_PUSH_POP,
    T_UDIV_SMALL,
    T_UDIV_LARGE,
    T_SDIV_ZERO,
    T_B_TAKEN,
    T_BNE_NOT_TAKEN,
    T_BNE_TAKEN,
    T_ISB,
    T_IT_FOLD,
    T_IT_MLA_RUN,
    T_IT_MLA_SKIPPED,
    T_UDIV_B_PAGE,
    T_IT_PAGE,
    T_LDR_PLUS1,
    T_LDR_PLUS2,
    T_LDRH_PLUS1,
    T_STR_PLUS3,
    T_BNE_W_RUN,
    T_TBH_EVEN,
    T_TBH_ODD,
    T_POP_PC,
    T_COUNT
};

static const char *const names[T_COUNT] = {
    "nop8",       "alu8",       "mul4",      "mla2",    "ldr1",          "ldr4",
    "str4",       "ldm4",       "push_pop",  "udiv_small", "udiv_large", "sdiv_zero",
    "b_taken",    "bne_not_taken", "bne_taken", "isb",
    "it_fold",    "it_mla_run", "it_mla_skipped", "udiv_b_page", "it_page",
    "ldr_plus1",  "ldr_plus2",  "ldrh_plus1", "str_plus3",
    "bne_w_run",  "tbh_even",   "tbh_odd",  "pop_pc",
};

enum { C_CPI_B, C_LSU_B, C_CPI_UDIV, C_LSU_LDR_NOP, C_CPI_LDR_NOP, C_FOLD_IT, C_CPI_LDR_PC, C_LSU_LDR_PC, C_COUNT };

static const char *const counter_names[C_COUNT] = {
    "cpi_b", "lsu_b", "cpi_udiv", "lsu_ldr_nop", "cpi_ldr_nop", "fold_it", "cpi_ldr_pc", "lsu_ldr_pc",
};

/* Word-aligned RAM source for ldm4. */
static volatile uint32_t ldm_buf[4] = {1, 2, 3, 4};

static uint32_t results[T_COUNT];
static uint32_t counters[C_COUNT];

/* noinline: one function, one copy of each block, easy to find in the
 * disassembly. */
__attribute__((noinline)) static void run_measurements(void)
{
    MEASURE(results[T_NOP8], 0, "",
            "nop\n\t" "nop\n\t" "nop\n\t" "nop\n\t"
            "nop\n\t" "nop\n\t" "nop\n\t" "nop\n\t",
            "");

    /* The 16-bit EOR is EORS (flag-setting outside an IT block); plain
     * "eor" would assemble to the 32-bit encoding. */
    MEASURE(results[T_ALU8], 0,
            "movs r2, #0\n\t" "movs r3, #0x5a\n\t" "movs r4, #0x33\n\t",
            "adds r2, r2, #1\n\t" "eors r3, r3, r4\n\t"
            "adds r2, r2, #1\n\t" "eors r3, r3, r4\n\t"
            "adds r2, r2, #1\n\t" "eors r3, r3, r4\n\t"
            "adds r2, r2, #1\n\t" "eors r3, r3, r4\n\t",
            "");

    MEASURE(results[T_MUL4], 0,
            "movs r2, #3\n\t" "movs r3, #5\n\t",
            "muls r2, r3, r2\n\t" "muls r2, r3, r2\n\t"
            "muls r2, r3, r2\n\t" "muls r2, r3, r2\n\t",
            "");

    MEASURE(results[T_MLA2], 0,
            "movs r2, #1\n\t" "movs r3, #3\n\t" "movs r4, #5\n\t",
            "mla r2, r3, r4, r2\n\t" "mla r2, r3, r4, r2\n\t",
            "");

    /* The sp-relative cases run on 16 bytes reserved below the
     * compiler's frame, so the stores clobber nothing. */
    MEASURE(results[T_LDR1], 0,
            "sub sp, #16\n\t" "movs r2, #0\n\t" "str r2, [sp]\n\t",
            "ldr r2, [sp]\n\t",
            "add sp, #16\n\t");

    MEASURE(results[T_LDR4], 0,
            "sub sp, #16\n\t" "movs r2, #0\n\t"
            "str r2, [sp]\n\t" "str r2, [sp, #4]\n\t"
            "str r2, [sp, #8]\n\t" "str r2, [sp, #12]\n\t",
            "ldr r2, [sp]\n\t" "ldr r3, [sp, #4]\n\t"
            "ldr r4, [sp, #8]\n\t" "ldr r5, [sp, #12]\n\t",
            "add sp, #16\n\t");

    MEASURE(results[T_STR4], 0,
            "sub sp, #16\n\t" "movs r2, #7\n\t",
            "str r2, [sp]\n\t" "str r2, [sp, #4]\n\t"
            "str r2, [sp, #8]\n\t" "str r2, [sp, #12]\n\t",
            "add sp, #16\n\t");

    /* Base in r1 (set by the compiler). The 16-bit LDM encoding always
     * writes back when the base is not in the list, hence "r1!"; the
     * end read overwrites r1 anyway. */
    MEASURE(results[T_LDM4], ldm_buf, "",
            "ldm r1!, {r2-r5}\n\t",
            "");

    MEASURE(results[T_PUSH_POP], 0, "",
            "push {r2-r5}\n\t" "pop {r2-r5}\n\t",
            "");

    MEASURE(results[T_UDIV_SMALL], 0,
            "movs r3, #100\n\t" "movs r4, #7\n\t",
            "udiv r2, r3, r4\n\t",
            "");

    /* r3 = 0xFFFFFFF0 = ~15. */
    MEASURE(results[T_UDIV_LARGE], 0,
            "movs r3, #15\n\t" "mvns r3, r3\n\t" "movs r4, #3\n\t",
            "udiv r2, r3, r4\n\t",
            "");

    /* CCR.DIV_0_TRP is clear out of reset: the result is 0, no fault. */
    MEASURE(results[T_SDIV_ZERO], 0,
            "movs r3, #100\n\t" "movs r4, #0\n\t",
            "sdiv r2, r3, r4\n\t",
            "");

    MEASURE(results[T_B_TAKEN], 0, "",
            "b 1f\n\t" "nop\n\t" "nop\n"
            "1:\n\t",
            "");

    MEASURE(results[T_BNE_NOT_TAKEN], 0,
            "movs r2, #1\n\t",
            "cmp r2, r2\n\t" "bne 1f\n\t" "nop\n"
            "1:\n\t",
            "");

    MEASURE(results[T_BNE_TAKEN], 0,
            "movs r2, #1\n\t" "movs r3, #2\n\t",
            "cmp r2, r3\n\t" "bne 1f\n\t" "nop\n"
            "1:\n\t",
            "");

    /* Four bne.w not taken in a row, behind an ISB with the first read at 0
     * mod 4: each fetches its target at decode, taking a cycle from the
     * fetch of the code it falls through to. */
    MEASURE(results[T_BNE_W_RUN], 0,
            "movs r2, #1\n\t" ".balign 4\n\t" "isb\n\t",
            "cmp r2, r2\n\t" "bne.w 1f\n\t" "bne.w 1f\n\t" "bne.w 1f\n\t" "bne.w 1f\n\t"
            "orr.w r5, r5, #1\n"
            "1:\n\t",
            "");

    MEASURE(results[T_ISB], 0, "",
            "isb\n\t",
            "");

    /* cmp sets Z = 0, so NE passes and EQ fails. */
    MEASURE(results[T_IT_FOLD], 0,
            "movs r2, #1\n\t",
            "cmp r2, #2\n\t" "it ne\n\t" "addne r3, r3, r2\n\t",
            "");

    MEASURE(results[T_IT_MLA_RUN], 0,
            "movs r2, #1\n\t" "movs r3, #3\n\t",
            "cmp r2, #2\n\t" "it ne\n\t" "mlane r3, r3, r3, r3\n\t",
            "");

    MEASURE(results[T_IT_MLA_SKIPPED], 0,
            "movs r2, #1\n\t" "movs r3, #3\n\t",
            "cmp r2, #2\n\t" "it eq\n\t" "mlaeq r3, r3, r3, r3\n\t",
            "");

    /* Unaligned accesses to SRAM (16 bytes below sp, addressed through r3),
     * which the core splits into aligned transfers; the scenario decides
     * whether that is timed (memory key times_unaligned). */
    MEASURE_BELOW_SP(results[T_LDR_PLUS1], "ldr.w r2, [r3, #1]\n\t");
    MEASURE_BELOW_SP(results[T_LDR_PLUS2], "ldr.w r2, [r3, #2]\n\t");
    MEASURE_BELOW_SP(results[T_LDRH_PLUS1], "ldrh.w r2, [r3, #1]\n\t");
    MEASURE_BELOW_SP(results[T_STR_PLUS3], "str.w r2, [r3, #3]\n\t");

    /* A TBH whose table of zeros (each target is the next instruction) sits
     * on the stack at an even and at an odd address: the odd entry is an
     * unaligned halfword, which the aligner splits like an LDRH's. */
    MEASURE(results[T_TBH_EVEN], 0,
            "sub sp, #16\n\t" "mov r3, sp\n\t" "movs r2, #0\n\t" "str r2, [r3]\n\t"
            "str r2, [r3, #4]\n\t" "movs r4, #0\n\t",
            "tbh [r3, r4, lsl #1]\n\t",
            "add sp, #16\n\t");
    MEASURE(results[T_TBH_ODD], 0,
            "sub sp, #16\n\t" "mov r3, sp\n\t" "movs r2, #0\n\t" "str r2, [r3]\n\t"
            "str r2, [r3, #4]\n\t" "adds r3, #1\n\t" "movs r4, #0\n\t",
            "tbh [r3, r4, lsl #1]\n\t",
            "add sp, #16\n\t");

    /* A function's return: POP of three registers and the pc, to the
     * closing read at a word-aligned address (the padding before it is
     * jumped over). */
    MEASURE(results[T_POP_PC], 0,
            "adr r5, 1f\n\t" "adds r5, #1\n\t" "push {r2-r5}\n\t",
            "pop {r2-r4, pc}\n\t" ".balign 4\n"
            "1:\n\t",
            "");

    /* The udiv straddles a 1 KiB page, where Unicorn ends a translated
     * block: the b behind it still starts its target fetch early. The
     * set-up jumps over the padding that puts the read at 1020 mod 1024. */
    MEASURE(results[T_UDIV_B_PAGE], 0,
            "b 3f\n\t" ".balign 1024\n\t" ".space 1016\n"
            "3:\n\t" "movs r3, #100\n\t" "movs r4, #7\n\t",
            "udiv r2, r3, r4\n\t" "b 1f\n\t" "nop\n"
            "1:\n\t",
            "");
}

/* Its own function: the page padding would put run_measurements' literal
 * pool out of reach. The IT is the last halfword of a 1 KiB page, so
 * Unicorn starts a new block with the bxeq it governs: that block must
 * still see it as conditional (skipped here, r2 != 2), not as a return. */
__attribute__((noinline)) static void run_page_measurements(void)
{
    MEASURE(results[T_IT_PAGE], 0,
            "b 3f\n\t" ".balign 1024\n\t" ".space 1016\n"
            "3:\n\t" "movs r2, #1\n\t",
            "cmp r2, #2\n\t" "it eq\n\t" "bxeq lr\n\t",
            "");
}

/* Each read is a load in the middle of a translated block, so the counts
 * must be those at the read, not at the block's start or end. */
__attribute__((noinline)) static void run_counter_measurements(void)
{
    /* B: 1 + P, less a cycle its early target fetch hides behind the 2-cycle
     * read; the refill counted by CPICNT. The closing read is not pipelined
     * behind a branch, so its second cycle is a load's: LSUCNT. */
    MEASURE_AT(counters[C_CPI_B], 0, "#8", "", "b 1f\n\t" "nop\n" "1:\n\t", "");
    MEASURE_AT(counters[C_LSU_B], 0, "#20", "", "b 1f\n\t" "nop\n" "1:\n\t", "");
    /* 100 / 7: 6 cycles, 5 beyond the first. */
    MEASURE_AT(counters[C_CPI_UDIV], 0, "#8", "movs r3, #100\n\t" "movs r4, #7\n\t", "udiv r2, r3, r4\n\t", "");
    /* nop; ldr; nop: the second nop runs in the load's data phase, so only
     * the closing read counts a load/store cycle; no CPI cycle. */
    MEASURE_AT(counters[C_LSU_LDR_NOP], 0, "#20", "sub sp, #16\n\t", "nop\n\t" "ldr r2, [sp]\n\t" "nop\n\t", "add sp, #16\n\t");
    MEASURE_AT(counters[C_CPI_LDR_NOP], 0, "#8", "sub sp, #16\n\t", "nop\n\t" "ldr r2, [sp]\n\t" "nop\n\t", "add sp, #16\n\t");
    /* An IT behind a 16-bit instruction folds: FOLDCNT counts it. */
    MEASURE_AT(counters[C_FOLD_IT], 0, "#24", "movs r2, #1\n\t", "cmp r2, #2\n\t" "it ne\n\t" "addne r3, r3, r2\n\t", "");
    /* LDR pc: its refill counts as CPI on the M3, as LSU on the M4 (silicon: cc2652
     * control_flow/ldr_pc reads CPICNT 0). The target's address is stored below sp. */
#define LDR_PC_SETUP "sub sp, #16\n\t" "adr.w r2, 4f\n\t" "adds r2, #1\n\t" "str r2, [sp]\n\t"
#define LDR_PC_BODY "ldr pc, [sp]\n\t" "nop\n\t" ".balign 4\n" "4:\n\t"
    MEASURE_AT(counters[C_CPI_LDR_PC], 0, "#8", LDR_PC_SETUP, LDR_PC_BODY, "add sp, #16\n\t");
    MEASURE_AT(counters[C_LSU_LDR_PC], 0, "#20", LDR_PC_SETUP, LDR_PC_BODY, "add sp, #16\n\t");
}

int main(void)
{
    dwt_cyccnt_start();
    DWT_CTRL |= DWT_CTRL_CPIEVTENA | DWT_CTRL_LSUEVTENA | DWT_CTRL_FOLDEVTENA;
    run_measurements();
    run_page_measurements();
    run_counter_measurements();

    print_measurements("timing", names, results, T_COUNT);
    /* The event counters are 8 bits wide. */
    for (unsigned i = 0; i < C_COUNT; i++) counters[i] &= 0xFF;
    print_measurements("counter", counter_names, counters, C_COUNT);
    return 0;
}
