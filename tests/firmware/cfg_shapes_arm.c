/* Control-flow shapes compiled for an application core (Cortex-A9, ARM
 * instruction set, one function in Thumb), for the CFG reconstruction of
 * A-profile images: ARM jump tables (ldrls pc, [pc, rN, lsl #2]),
 * conditional returns, nested loops, literal pools, tail calls and
 * interworking calls. emutrace does not run this code; the tests read its
 * structure only. Each arm_* function's name says its shape. */
#include <stdint.h>

#define SHAPE __attribute__((noinline, noclone))

volatile uint32_t sink;

/* A jump table: GCC -O2 -marm loads the pc from a table of addresses. */
SHAPE uint32_t arm_switch(uint32_t x, uint32_t y)
{
    switch (x) {
    case 0: return y * 3u + 1u;
    case 1: return y ^ 0x5a5au;
    case 2: return (y << 5) - y;
    case 3: return y / 10u;
    case 4: return y * y;
    case 5: return y + 0x1234567u;
    case 6: return y >> 3;
    case 7: return ~y;
    default: return 0;
    }
}

/* Two loops, the inner one at depth 2; the trip counts are data-dependent. */
SHAPE uint32_t arm_nested_loops(uint32_t n, uint32_t m)
{
    uint32_t acc = 0;
    for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = 0; j < m; ++j)
            acc = acc * 31u + (i ^ j);
        sink = acc;
    }
    return acc;
}

/* A literal pool in the middle of the code: the constant is loaded
 * pc-relative and the pool ($d) is branched over; ARMv7 compilers use
 * movw/movt otherwise, so the pool is placed by hand. */
SHAPE uint32_t arm_literal(uint32_t x)
{
    uint32_t k;
    __asm__("ldr %0, =0x9e3779b9\n\tb 1f\n\t.ltorg\n1:" : "=r"(k));
    return x * k + 0x7f4a7c15u;
}

/* An early return that ARM code makes a conditional return (bxhi lr), then a tail call. */
SHAPE uint32_t arm_early_return(uint32_t x)
{
    if (x > 100u)
        return x;
    return arm_literal(x);
}

/* Thumb code in the same image, called from ARM code (blx). */
__attribute__((target("thumb"), noinline, noclone)) uint32_t thumb_helper(uint32_t x)
{
    uint32_t r = 0;
    while (x) {
        r += x & 0xffu;
        x >>= 3;
    }
    return r;
}

/* Ends in a tail call. */
SHAPE uint32_t arm_tail(uint32_t x)
{
    sink = x;
    return arm_literal(x + 1u);
}

__attribute__((section(".text._start"), noreturn)) void _start(void)
{
    for (;;)
        sink = arm_switch(sink, 3) + arm_nested_loops(sink, 4) + arm_early_return(sink) + thumb_helper(sink) + arm_tail(sink);
}
