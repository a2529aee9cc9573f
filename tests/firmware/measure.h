/* DWT measurements of fixed instruction sequences (dwt_timing.c describes the
 * register conventions): r6 the DWT base, r0 and r1 the counter before and
 * after, r2-r5 the sequence's operands. */
#ifndef EMUTRACE_TEST_MEASURE_H
#define EMUTRACE_TEST_MEASURE_H

#include <stdint.h>

#include "cortex_m.h"
#include "print.h"

#define CLOBBERS "r2", "r3", "r4", "r5", "cc", "memory"

/* SETUP, BODY and CLEANUP are asm string literals. ARG is passed in r1
 * (which the end read overwrites), for sequences that need an address. */
#define MEASURE(out, arg, SETUP, BODY, CLEANUP) \
    MEASURE_AT(out, arg, "#4", SETUP, BODY, CLEANUP)

/* BODY on 16 bytes reserved below the compiler's frame, r3 pointing at them. */
#define MEASURE_BELOW_SP(out, BODY) \
    MEASURE(out, 0, "sub sp, #16\n\t" "mov r3, sp\n\t", BODY, "add sp, #16\n\t")

/* OFFSET: the DWT register read, "#4" CYCCNT, "#8" CPICNT, "#20" LSUCNT,
 * "#24" FOLDCNT. */
#define MEASURE_AT(out, arg, OFFSET, SETUP, BODY, CLEANUP)                    \
    do {                                                                      \
        register uint32_t t0_ __asm__("r0");                                  \
        register uint32_t t1_ __asm__("r1") = (uint32_t)(arg);                \
        register uint32_t dwt_ __asm__("r6") = DWT_BASE;                      \
        __asm__ volatile(".syntax unified\n\t"                                \
                         SETUP                                                \
                         "ldr r0, [r6, " OFFSET "]\n\t"                       \
                         BODY                                                 \
                         "ldr r1, [r6, " OFFSET "]\n\t"                       \
                         CLEANUP                                              \
                         : "=&r"(t0_), "+r"(t1_)                              \
                         : "r"(dwt_)                                          \
                         : CLOBBERS);                                         \
        (out) = t1_ - t0_;                                                    \
    } while (0)

/* Prints "<kind> <name> <value>" for each of the n measurements, a line each, to the semihosting
 * console (what tests/support/measurements.h reads). */
static inline void print_measurements(const char *kind, const char *const *names, const uint32_t *values, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        char line[64];
        char *p = fmt_str(line, kind);
        p = fmt_str(p, " ");
        p = fmt_str(p, names[i]);
        p = fmt_str(p, " ");
        p = fmt_dec(p, values[i]);
        fmt_str(p, "\n");
        print_to_semihosting(line);
    }
}

/* Three rounds of `pass` over each of the n tables, each pass timed with DWT_CYCCNT (turned on
 * here): "cycles <name> <N>" and "sum <name> <value>" per table, a line each, every round. At
 * most 4 tables. */
typedef uint32_t (*table_pass)(const uint8_t *table, unsigned count);
static inline void print_timed_passes(table_pass pass, const char *const *names, const uint8_t *const *tables, unsigned n, unsigned count)
{
    uint32_t cycles[4], sums[4];
    COREDEBUG_DEMCR |= COREDEBUG_DEMCR_TRCENA;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    for (int round = 0; round < 3; round++) {
        for (unsigned k = 0; k < n; k++) {
            uint32_t start = DWT_CYCCNT;
            sums[k] = pass(tables[k], count);
            cycles[k] = DWT_CYCCNT - start;
        }
        print_measurements("cycles", names, cycles, n);
        print_measurements("sum", names, sums, n);
    }
}

#endif
