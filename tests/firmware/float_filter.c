/* A single-precision filter over a table, built twice: with the FPU (hard float, Cortex-M4F) and
 * without it (soft float, Cortex-M4). Both print the same result; the hard-float build says in its
 * build attributes that it needs an FPU, which picks the core when no scenario or --cpu does. */
#include <stdint.h>

#include "print.h"

static volatile float samples[64];

__attribute__((noinline)) static float filter(void) {
    float acc = 0.f;
    for (int i = 0; i < 64; ++i) samples[i] = (float)i * 0.5f;
    for (int round = 0; round < 100; ++round)
        for (int i = 0; i < 64; ++i) acc = acc * 0.99f + samples[i] / (1.0f + samples[(i + 1) & 63]);
    return acc;
}

int main(void) {
#if defined(__ARM_FP)
    /* CPACR: full access to CP10 and CP11, before the first floating-point instruction. */
    *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
    __asm volatile("dsb\n\tisb" ::: "memory");
#endif
    char line[32], *p = fmt_str(line, "filter ");
    p = fmt_int(p, (int32_t)(filter() * 1000.f));
    fmt_str(p, "\n");
    print_to_semihosting(line);
    return 0;
}
