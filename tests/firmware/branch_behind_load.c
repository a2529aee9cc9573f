/* A branch decoded behind a load, as the CMEmu silicon test bcond times it on a CC26x2 (cache off,
 * VIMS_CTL mode 3, line buffers on; code in flash): the pipeline emptied by an ISB at a 16-byte
 * boundary, a DWT_CYCCNT read, the branch, four 32-bit instructions it jumps over, the target at
 * the next 16-byte boundary, a second DWT_CYCCNT read. For tests/emu/branch_behind_load_test.cpp.
 *
 * The flags are set well before the branch (NE holds), so the B<cc> either branches (bne) or not
 * (beq); b is the unconditional branch. And a B an IT block makes conditional, failing.
 * Each case runs twice; the second is reported.
 * Output: "branch <case> <cycles>" per case. */
#include <stdint.h>

#include "cc26x2_vims.h"

/* SETUP, then the pipeline emptied by an ISB at a 16-byte boundary, a DWT_CYCCNT read, BODY (which
 * may branch to the local label 1, placed after it) and a second DWT_CYCCNT read. */
#define TIMED_FROM_ISB(out, SETUP, BODY)                                  \
    do {                                                                  \
        register uint32_t dwt_ __asm__("r6") = DWT_BASE;                  \
        uint32_t t_;                                                      \
        __asm__ volatile(".syntax unified\n\t" SETUP                      \
                         ".align 4\n\t"                                   \
                         "isb\n\t"                                        \
                         "ldr.w r2, [r6, #4]\n\t" BODY                    \
                         "1:\n\t"                                         \
                         "ldr.w r3, [r6, #4]\n\t"                         \
                         "subs %0, r3, r2\n\t"                            \
                         : "=r"(t_)                                       \
                         : "r"(dwt_)                                      \
                         : "r2", "r3", "r5", "cc", "memory");             \
        (out) = t_;                                                       \
    } while (0)

/* BRANCH: the branch mnemonic, e.g. "bne.n". NE holds. */
#define BRANCH_BEHIND_LOAD(out, BRANCH)                                                          \
    TIMED_FROM_ISB(out, "movs r5, #1\n\tcmp r5, #0\n\t",                                        \
                   BRANCH " 1f\n\tadd.w r5, r5, #1\n\tadd.w r5, r5, #1\n\tadd.w r5, r5, #1\n\t" \
                   "add.w r5, r5, #1\n\t.align 4\n")

/* A B its IT block makes conditional, failing, as the CMEmu silicon test
 * it_fold_after_skipped_branch times it: the IT executes (it does not fold behind the 32-bit
 * load) as the branch is decoded, and an IT and two instructions follow. EQ holds. */
#define FAILING_BRANCH_IN_IT(out) \
    TIMED_FROM_ISB(out, "movs r5, #0\n\t", "it ne\n\tbne.n 1f\n\tit eq\n\taddeq.w r5, r5, #0\n\tadd.w r5, r5, #1\n")

enum { B, BNE_TAKEN, BEQ_NOT_TAKEN, IT_BNE_FAILING, COUNT };
static const char *const names[COUNT] = {"b", "bne_taken", "beq_not_taken", "it_bne_failing"};

int main(void)
{
    uint32_t cycles[COUNT];
    measure_with_vims_cache_off();
    for (int pass = 0; pass < 2; pass++) {
        BRANCH_BEHIND_LOAD(cycles[B], "b.n");
        BRANCH_BEHIND_LOAD(cycles[BNE_TAKEN], "bne.n");
        BRANCH_BEHIND_LOAD(cycles[BEQ_NOT_TAKEN], "beq.n");
        FAILING_BRANCH_IN_IT(cycles[IT_BNE_FAILING]);
    }
    print_measurements("branch", names, cycles, COUNT);
    return 0;
}
