/* A function monitored by sampling with real markers, the way a board would run it.
 *
 * Built twice. Plain (sampled_plain.elf): MARK() is empty; emutrace markers plans classify() on
 * this build and writes the header (build/firmware/sampled_markers.h). Instrumented
 * (sampled.elf, EMUTRACE_SAMPLED): the header's macros fill the MARK() placed at each block's
 * start, and a SysTick interrupt samples the interrupted pc and the markers
 * (emutrace_markers_sample()) into emutrace's marker device, every EMUTRACE_MARKERS_PERIOD cycles
 * of the function plus what a sample costs (measured at start-up). Where a macro lands in the
 * instrumented code is recorded in .emutrace.markers, so a mark placed off its block only
 * changes the period the plan guarantees, which the monitor recomputes from the records.
 *
 * Output: "sampled classify: <histogram checksum> samples=<N>". */
#include <stdint.h>

#include "cortex_m.h"
#include "print.h"

#ifdef EMUTRACE_SAMPLED
#define EMUTRACE_MARKERS_DEFINE
#define EMUTRACE_MARKER_DEVICE 0x40020000u
#include "sampled_markers.h"
#define MARK(block) EMUTRACE_MARKER_##block()
#else
#define MARK(block) ((void)0)
#endif


#define N 96
static uint32_t data[N];
static volatile uint32_t histogram[4]; /* volatile: each branch stores, as a driver would */
static volatile uint32_t samples;

/* The MARK names are the plain build's blocks (emutrace cfg sampled_plain.elf). */
__attribute__((noinline, noipa)) void classify(const uint32_t *x, unsigned n)
{
    MARK(CLASSIFY_0X0);
    for (unsigned i = 0; i < n; i++) {
        MARK(CLASSIFY_0X18);
        uint32_t v = x[i];
        if (v & 1) {
            MARK(CLASSIFY_0XC);
            histogram[0] += v >> 3;
        } else {
            MARK(CLASSIFY_0X20);
            if (v & 2) {
                MARK(CLASSIFY_0X24);
                histogram[1] += v >> 5;
                if (v & 4) {
                    MARK(CLASSIFY_0X30);
                    histogram[2]++;
                }
            } else {
                MARK(CLASSIFY_0X3E);
                histogram[3] ^= v;
            }
        }
        MARK(CLASSIFY_0X14);
    }
    MARK(CLASSIFY_0X3C);
}

#ifdef EMUTRACE_SAMPLED
static uint32_t last_exit;

/* Called by the SysTick handler with the exception frame and CYCCNT as read on entry. */
__attribute__((used)) void sample_handler(uint32_t *frame, uint32_t entry)
{
    ++samples;
    emutrace_markers_sample(frame[6], entry - last_exit);
    last_exit = DWT_CYCCNT;
}

/* CYCCNT first, so the elapsed count holds as little of the handler as it can. */
__attribute__((naked)) void SysTick_Handler(void)
{
    __asm__ volatile("ldr r1, =0xE0001004\n\t"
                     "ldr r1, [r1]\n\t"
                     "tst lr, #4\n\t"
                     "ite eq\n\t"
                     "mrseq r0, msp\n\t"
                     "mrsne r0, psp\n\t"
                     "b sample_handler\n\t"
                     ".ltorg");
}

/* What one sample costs: the interrupt's entry, the handler and its return, measured with CYCCNT
 * around a SysTick pended by hand, less the same instructions writing nothing (a write of 0 to
 * ICSR sets and clears nothing). The handler's cycles depend on the core and its memories, so
 * the period is the plan's guarantee plus this, not a constant. */
static uint32_t sample_cost(void)
{
    uint32_t t0 = DWT_CYCCNT;
    SCB_ICSR = 0;
    __DSB();
    __ISB();
    const uint32_t baseline = DWT_CYCCNT - t0;
    t0 = DWT_CYCCNT;
    SCB_ICSR = SCB_ICSR_PENDSTSET;
    __DSB();
    __ISB();
    return DWT_CYCCNT - t0 - baseline;
}
#endif

int main(void)
{
    uint32_t s = 0x1234567u;
    for (unsigned i = 0; i < N; i++) {
        s = s * 1664525u + 1013904223u;
        data[i] = s >> 7;
    }
#ifdef EMUTRACE_SAMPLED
    COREDEBUG_DEMCR |= COREDEBUG_DEMCR_TRCENA;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    last_exit = DWT_CYCCNT;
#ifndef SAMPLE_PERIOD
    const uint32_t period = EMUTRACE_MARKERS_PERIOD + sample_cost();
#else
    const uint32_t period = SAMPLE_PERIOD; /* a fixed tick, to see the plan's guarantee fail */
#endif
    SYST_CSR = 0;
    SYST_RVR = period - 1u;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
#endif
#ifndef ROUNDS
#define ROUNDS 40
#endif
    for (unsigned round = 0; round < ROUNDS; round++) classify(data, N);
#ifdef EMUTRACE_SAMPLED
    SYST_CSR = 0;
#endif
    uint32_t sum = histogram[0] ^ (histogram[1] << 1) ^ (histogram[2] << 2) ^ (histogram[3] << 3);
    char line[64];
    char *p = fmt_str(line, "sampled classify: ");
    p = fmt_hex32(p, sum);
    p = fmt_str(p, " samples=");
    p = fmt_dec(p, samples);
    fmt_str(p, "\n");
    print_to_semihosting(line);
    return 0;
}
