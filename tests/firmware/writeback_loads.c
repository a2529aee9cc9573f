/* Runs of writeback loads on one base on a CC26x2 (cache off, VIMS_CTL mode 3, line buffers on;
 * code in flash, data in SRAM), for tests/emu/writeback_loads_test.cpp:
 * - behind a load, as the CMEmu silicon test ldm_ldmdb times them: the pipeline emptied by an ISB
 *   at a 16-byte boundary, a DWT_CYCCNT read, N times `ldr.w r4, [r5], #4`, a second
 *   DWT_CYCCNT read;
 * - behind an ALU instruction, as ldr_ldm_ldmdb_ldrd_same_args_and_rings times them: an ISB at 8
 *   mod 16, a DWT_CYCCNT read [r6, r1], `add.w`, N loads `ldr.w r4, [r5, #4]!` and
 *   `ldr.w r4, [r5, #-4]!` in turn, `add.w`, a second read;
 * - a store behind a writeback load, as ldr_writeback_pipelining times it: an ISB at a 16-byte
 *   boundary, a DWT_CYCCNT read [r6, r1], `ldr.w r4, [r5, #4]!`, a store with or without
 *   writeback, a 16-bit DWT_CYCCNT read.
 *
 * Each case runs twice; the second is reported. Output: "writeback <case> <cycles>" per case. */
#include <stdint.h>

#include "cc26x2_vims.h"

#define LOAD "ldr.w r4, [r5], #4\n\t"

/* LOADS: the loads, e.g. LOAD LOAD. */
#define WRITEBACK_LOADS(out, LOADS)                                            \
    do {                                                                       \
        register uint32_t dwt_ __asm__("r6") = DWT_BASE;                       \
        register const uint32_t *words_ __asm__("r5") = words;                 \
        uint32_t t_;                                                           \
        __asm__ volatile(".syntax unified\n\t"                                 \
                         ".align 4\n\t"                                        \
                         "isb\n\t"                                             \
                         "ldr.w r2, [r6, #4]\n\t" LOADS "ldr.w r3, [r6, #4]\n\t" \
                         "subs %0, r3, r2\n\t"                                 \
                         : "=r"(t_), "+r"(words_)                              \
                         : "r"(dwt_)                                           \
                         : "r2", "r3", "r4", "cc", "memory");                  \
        (out) = t_;                                                            \
    } while (0)

#define UP "ldr.w r4, [r5, #4]!\n\t"
#define DOWN "ldr.w r4, [r5, #-4]!\n\t"

/* LOADS: the loads, e.g. UP DOWN. */
#define WRITEBACK_LOADS_BEHIND_ALU(out, LOADS)                                                  \
    do {                                                                                        \
        register uint32_t dwt_ __asm__("r6") = DWT_BASE;                                        \
        register uint32_t cyccnt_ __asm__("r1") = 4;                                            \
        register const uint32_t *words_ __asm__("r5") = words + 2;                              \
        uint32_t t_;                                                                            \
        __asm__ volatile(".syntax unified\n\t"                                                  \
                         ".align 4\n\t"                                                         \
                         "nop.w\n\t"                                                            \
                         "nop.w\n\t"                                                            \
                         "isb\n\t"                                                              \
                         "ldr.w r2, [r6, r1]\n\t"                                               \
                         "add.w r3, r3, r3\n\t" LOADS "add.w r3, r3, r3\n\t"                    \
                         "ldr.w r3, [r6, r1]\n\t"                                               \
                         "subs %0, r3, r2\n\t"                                                  \
                         : "=r"(t_), "+r"(words_)                                               \
                         : "r"(dwt_), "r"(cyccnt_)                                              \
                         : "r2", "r3", "r4", "cc", "memory");                                   \
        (out) = t_;                                                                             \
    } while (0)

/* STORE: the store behind the load. */
#define STORE_BEHIND_WRITEBACK_LOAD(out, STORE)                                                 \
    do {                                                                                        \
        register uint32_t dwt_ __asm__("r6") = DWT_BASE;                                        \
        register uint32_t cyccnt_ __asm__("r1") = 4;                                            \
        register const uint32_t *words_ __asm__("r5") = words;                                  \
        register uint32_t *stored_ __asm__("r0") = stored;                                      \
        uint32_t t_;                                                                            \
        __asm__ volatile(".syntax unified\n\t"                                                  \
                         ".align 4\n\t"                                                         \
                         "isb\n\t"                                                              \
                         "ldr.w r2, [r6, r1]\n\t"                                               \
                         "ldr.w r4, [r5, #4]!\n\t" STORE "ldr r3, [r6, r1]\n\t"                \
                         "subs %0, r3, r2\n\t"                                                  \
                         : "=r"(t_), "+r"(words_), "+r"(stored_)                                \
                         : "r"(dwt_), "r"(cyccnt_)                                              \
                         : "r2", "r3", "r4", "cc", "memory");                                   \
        (out) = t_;                                                                             \
    } while (0)

static uint32_t words[8];
static uint32_t stored[4];

enum { ONE, TWO, THREE, FOUR, ALU_ONE, ALU_TWO, ALU_FOUR, STORE, STORE_WRITEBACK, COUNT };
static const char *const names[COUNT] = {"one",           "two",         "three", "four", "behind_alu_one", "behind_alu_two", "behind_alu_four",
                                         "load_store", "load_store_writeback"};

int main(void)
{
    uint32_t cycles[COUNT];
    measure_with_vims_cache_off();
    for (int pass = 0; pass < 2; pass++) {
        WRITEBACK_LOADS(cycles[ONE], LOAD);
        WRITEBACK_LOADS(cycles[TWO], LOAD LOAD);
        WRITEBACK_LOADS(cycles[THREE], LOAD LOAD LOAD);
        WRITEBACK_LOADS(cycles[FOUR], LOAD LOAD LOAD LOAD);
        WRITEBACK_LOADS_BEHIND_ALU(cycles[ALU_ONE], UP);
        WRITEBACK_LOADS_BEHIND_ALU(cycles[ALU_TWO], UP DOWN);
        WRITEBACK_LOADS_BEHIND_ALU(cycles[ALU_FOUR], UP DOWN UP DOWN);
        STORE_BEHIND_WRITEBACK_LOAD(cycles[STORE], "str.w r4, [r0]\n\t");
        STORE_BEHIND_WRITEBACK_LOAD(cycles[STORE_WRITEBACK], "str.w r4, [r0, #4]!\n\t");
    }
    print_measurements("writeback", names, cycles, COUNT);
    return 0;
}
