/* Decode and IT-block rules of the pipeline model taken from CMEmu's components, each measured
 * against a sequence that must cost the same when the rule holds:
 *   bl_bx_lr     a BX LR right behind the BL that called it is taken at decode, as a B would be
 *                (the BL's link is known at decode): equals bl_b.
 *   skip_ldr_dep a load its IT block fails does not wait for its address register, written by
 *                the member before it: equals skip_ldr_free, where nothing writes it.
 *   skip_in_data an instruction its IT block fails runs in the data phase of the load before it,
 *                as a NOP does: equals nop_in_data.
 *   it_bx_lr     a BX LR its IT block makes conditional, passing: on the M3 taken at decode, as
 *                the same return without the IT (bx_lr); the M4 branches it in execute.
 *   mla_bne_own_word  edn's inner loop (LDRSH, LDRSH, CMP, MLA, BNE back to a 32-bit target at
 *                2 mod 4), four rounds: the BNE, in a word of its own, fetches its target at
 *                decode while the MLA runs; mla_bne_shared_word has a NOP more and the BNE in the
 *                MLA's last word, where it waits for the MLA's last cycle.
 *   skip_pop_pc  a POP of the pc its IT block fails: a cycle more than the NOP in its place
 *                (skip_nop), libgcc's soft float's `ittt ne; movne; movne; popne {r4, r5, pc}`.
 *   fold_after_member  FOLDCNT over two IT blocks, the second IT behind the first block's last
 *                member: it does not fold there (one fold), where behind an unconditional
 *                16-bit instruction it does (fold_after_plain: two).
 *   it_beq_wide  libgcc's __divsf3 entry test (`ands.w; ittt ne; andsne.w; teqne; teqne;
 *                beq.n` at 2 mod 4, not taken, a 32-bit SUB.W behind it, 32-bit instructions on):
 *                the fetch skips a cycle after the B<cc> resolves, so a cycle more than the same
 *                code with a NOP for the IT and the members unconditional (nop_beq_wide). With a
 *                16-bit SUBS behind the B<cc> there is no gap: it_beq_narrow equals nop_beq_narrow.
 * Output: "timing <name> <delta>" lines, as dwt_timing.c's. */
#include <stdint.h>

#include "measure.h"

enum { T_BL_BX_LR, T_BL_B, T_SKIP_LDR_DEP, T_SKIP_LDR_FREE, T_SKIP_IN_DATA, T_NOP_IN_DATA, T_IT_BX_LR, T_BX_LR,
       T_FOLD_AFTER_MEMBER, T_FOLD_AFTER_PLAIN, T_MLA_BNE_OWN_WORD, T_MLA_BNE_SHARED_WORD,
       T_SKIP_POP_PC, T_SKIP_NOP, T_IT_BEQ_WIDE, T_NOP_BEQ_WIDE, T_IT_BEQ_NARROW, T_NOP_BEQ_NARROW, T_COUNT };
static const char *const names[T_COUNT] = {"bl_bx_lr", "bl_b",        "skip_ldr_dep", "skip_ldr_free",
                                           "skip_in_data", "nop_in_data", "it_bx_lr", "bx_lr",
                                           "fold_after_member", "fold_after_plain",
                                           "mla_bne_own_word", "mla_bne_shared_word", "skip_pop_pc", "skip_nop",
                                           "it_beq_wide", "nop_beq_wide", "it_beq_narrow", "nop_beq_narrow"};
static uint32_t results[T_COUNT];

__attribute__((noinline)) static void run_measurements(void)
{
    /* r5 keeps LR across the call; the callee returns to the read after the BL. */
    MEASURE(results[T_BL_BX_LR], 0, "mov r5, lr\n\t", "bl 2f\n\t" "b 3f\n" "2:\n\t" "bx lr\n" "3:\n\t", "mov lr, r5\n\t");
    MEASURE(results[T_BL_B], 0, "mov r5, lr\n\t", "bl 2f\n\t" "b 3f\n" "2:\n\t" "b.n 4f\n" "4:\n\t" "b 3f\n" "3:\n\t", "mov lr, r5\n\t");
    /* r3 (the stack) is not 0: NE passes, EQ fails. */
    MEASURE_BELOW_SP(results[T_SKIP_LDR_DEP], "cmp r3, #0\n\t" "ite ne\n\t" "addne.w r3, r3, #0\n\t" "ldreq.w r2, [r3]\n\t");
    MEASURE_BELOW_SP(results[T_SKIP_LDR_FREE], "cmp r3, #0\n\t" "ite ne\n\t" "addne.w r4, r4, #0\n\t" "ldreq.w r2, [r3]\n\t");
    MEASURE_BELOW_SP(results[T_SKIP_IN_DATA], "cmp r3, #0\n\t" "ite ne\n\t" "ldrne.w r2, [r3]\n\t" "addeq.w r4, r4, #1\n\t");
    MEASURE_BELOW_SP(results[T_NOP_IN_DATA], "cmp r3, #0\n\t" "itt ne\n\t" "ldrne.w r2, [r3]\n\t" "nopne.w\n\t");
    /* The callee sets Z (its IT folds onto the MOVS) and returns, with or without the IT. */
    MEASURE(results[T_IT_BX_LR], 0, "mov r5, lr\n\t", "bl 2f\n\t" "b 3f\n" "2:\n\t" "movs r4, #0\n\t" "it eq\n\t" "bxeq lr\n" "3:\n\t", "mov lr, r5\n\t");
    MEASURE(results[T_BX_LR], 0, "mov r5, lr\n\t", "bl 2f\n\t" "b 3f\n" "2:\n\t" "movs r4, #0\n\t" "bx lr\n" "3:\n\t", "mov lr, r5\n\t");
    /* FOLDCNT; r2 is 0 and r3 1, so EQ passes in the first block and NE in the second. The
     * 16-bit CMPs give each IT a 16-bit instruction to fold onto; libgcc's soft float has the
     * first shape (it pl; cmppl; it eq; cmpeq). */
    MEASURE_AT(results[T_FOLD_AFTER_MEMBER], 0, "#24", "movs r2, #0\n\t" "movs r3, #1\n\t",
               "cmp r2, #0\n\t" "it eq\n\t" "cmpeq r3, #0\n\t" "it ne\n\t" "addne r4, r4, r3\n\t", "");
    MEASURE_AT(results[T_FOLD_AFTER_PLAIN], 0, "#24", "movs r2, #0\n\t" "movs r3, #1\n\t",
               "cmp r2, #0\n\t" "it eq\n\t" "addeq r4, r4, r3\n\t" "cmp r3, #0\n\t" "it ne\n\t" "addne r4, r4, r3\n\t", "");
    /* r3 (the stack) is not 0: EQ fails the whole block. */
    MEASURE_BELOW_SP(results[T_SKIP_POP_PC], "cmp r3, #0\n\t" "ittt eq\n\t" "moveq r4, r4\n\t" "moveq r4, r4\n\t" "popeq {r4, pc}\n\t");
    MEASURE_BELOW_SP(results[T_SKIP_NOP], "cmp r3, #0\n\t" "ittt eq\n\t" "moveq r4, r4\n\t" "moveq r4, r4\n\t" "nopeq\n\t");
    /* 16 bytes below sp, r5 walking them a word a round, r4 the end. The macro's CYCCNT read
     * (16-bit) follows the .balign, so the loop starts at 2 mod 4 as edn's does, and the MLA
     * lands at 0 mod 4 (own word) or, behind the NOP, at 2 mod 4 (shared word). */
    MEASURE(results[T_MLA_BNE_OWN_WORD], 0, "sub sp, #16\n\t" "mov r5, sp\n\t" "add r4, r5, #16\n\t" ".balign 4\n\t",
            "2:\n\t" "ldrsh.w r2, [r5, #2]!\n\t" "ldrsh.w r3, [r5], #2\n\t" "cmp r5, r4\n\t" "mla r2, r2, r3, r2\n\t" "bne 2b\n\t",
            "add sp, #16\n\t");
    MEASURE(results[T_MLA_BNE_SHARED_WORD], 0, "sub sp, #16\n\t" "mov r5, sp\n\t" "add r4, r5, #16\n\t" ".balign 4\n\t",
            "2:\n\t" "ldrsh.w r2, [r5, #2]!\n\t" "ldrsh.w r3, [r5], #2\n\t" "cmp r5, r4\n\t" "nop\n\t" "mla r2, r2, r3, r2\n\t" "bne 2b\n\t",
            "add sp, #16\n\t");
    /* r4 = r5 = 1.0f: every member passes (NE) and the BEQ falls through. The 16-bit MOVS puts
     * the ANDS.W at 0 mod 4 behind the macro's 16-bit CYCCNT read, the B<cc> at 2 mod 4 and the
     * SUB.W at 0 mod 4, as in __divsf3. */
#define FLOAT_ONES "movw r4, #0\n\t" "movt r4, #0x3f80\n\t" "mov r5, r4\n\t" ".balign 4\n\t"
#define WIDE_TAIL "sub.w r2, r2, r3\n\t" "eor.w r3, r4, r5\n\t" "lsls r5, r5, #9\n\t" "mov.w r4, r4, lsl #9\n\t" "add.w r2, r2, #1\n" "9:\n\t"
#define NARROW_TAIL "subs r2, r2, r3\n\t" "eor.w r3, r4, r5\n\t" "lsls r5, r5, #9\n\t" "mov.w r4, r4, lsl #9\n\t" "add.w r2, r2, #1\n" "9:\n\t"
#define IT_TEST "movs r2, #0\n\t" "ands.w r2, r4, #0x7f800000\n\t" "ittt ne\n\t" "andsne.w r3, r5, #0x7f800000\n\t" \
                "teqne r2, #0x7f800000\n\t" "teqne r3, #0x7f800000\n\t" "beq.n 9f\n\t"
#define NOP_TEST "movs r2, #0\n\t" "ands.w r2, r4, #0x7f800000\n\t" "nop\n\t" "ands.w r3, r5, #0x7f800000\n\t" \
                 "teq r2, #0x7f800000\n\t" "teq r3, #0x7f800000\n\t" "beq.n 9f\n\t"
    MEASURE(results[T_IT_BEQ_WIDE], 0, FLOAT_ONES, IT_TEST WIDE_TAIL, "");
    MEASURE(results[T_NOP_BEQ_WIDE], 0, FLOAT_ONES, NOP_TEST WIDE_TAIL, "");
    MEASURE(results[T_IT_BEQ_NARROW], 0, FLOAT_ONES, IT_TEST NARROW_TAIL, "");
    MEASURE(results[T_NOP_BEQ_NARROW], 0, FLOAT_ONES, NOP_TEST NARROW_TAIL, "");
}

int main(void)
{
    dwt_cyccnt_start();
    DWT_CTRL |= DWT_CTRL_FOLDEVTENA;
    run_measurements();
    print_measurements("timing", names, results, T_COUNT);
    return 0;
}
