/* Functions with known control-flow shapes, for testing the CFG
 * reconstruction (basic blocks, edges, TBB jump tables, natural loops
 * and their nesting, call sites, tail calls, literal pools).
 *
 * Each shape_* function's name says what GCC -O2 -mthumb -mcpu=cortex-m3
 * must compile it to; the code is written so that it does (arms too big
 * for IT blocks, non-linear loop bodies that have no closed form, case
 * bodies that are not constants so the switch stays a jump table).
 * Changing a function changes the layout a CFG test asserts against.
 *
 * Output: one line "cfg: <sum>", the sum of all results. */
#include <stdint.h>

#include "print.h"
#include "semihost.h"

#define SHAPE __attribute__((noinline, noclone))

/* One if/else diamond: two arms doing different arithmetic, then a join. */
SHAPE uint32_t shape_if_else(uint32_t x)
{
    uint32_t r;
    if (x & 1u) {
        r = x * 2654435761u;
        r = r / (x | 3u);
        r ^= r >> 7;
    } else {
        r = x / 7u + 0x1234u;
        r = r * r;
        r -= x >> 3;
    }
    /* A join too big for GCC to duplicate into both arms. */
    r ^= r >> 13;
    r *= 0x85ebca6bu;
    r ^= r >> 16;
    return r + x;
}

/* Dense switch 0..9 plus default: a TBB jump table. */
SHAPE uint32_t shape_switch(uint32_t x)
{
    uint32_t y = x >> 4;
    switch (x & 15u) {
    case 0: return y * 3u + 1u;
    case 1: return y ^ 0x5a5au;
    case 2: return (y << 5) - y;
    case 3: return y / 5u;
    case 4: return y + 0x1111u;
    case 5: return y * y;
    case 6: return ~y;
    case 7: return y >> 3;
    case 8: return y % 9u;
    case 9: return (y << 2) | 3u;
    default: return y - 77u;
    }
}

/* A loop inside a loop (inner trip count depends on the outer index). */
SHAPE uint32_t shape_nested_loops(uint32_t n)
{
    uint32_t s = 1;
#pragma GCC unroll 1
    for (uint32_t i = 0; i < n; i++) {
#pragma GCC unroll 1
        for (uint32_t j = 0; j < i; j++)
            s = (s * 31u) ^ (i + j);
    }
    return s;
}

/* Two consecutive, non-nested loops. */
SHAPE uint32_t shape_sibling_loops(uint32_t n)
{
    uint32_t s = 7;
#pragma GCC unroll 1
    for (uint32_t i = 0; i < n; i++)
        s = (s * 33u) ^ i;
    uint32_t t = s;
#pragma GCC unroll 1
    for (uint32_t i = 0; i < n; i++)
        t += (s >> (i & 31u)) * t;
    return t;
}

/* Several returns. */
SHAPE uint32_t shape_early_return(uint32_t x)
{
    if (x == 0)
        return 1;
    if (x > 100)
        return x / 13u + 2u;
    if (x & 4u)
        return (x * x) ^ 0x77u;
    return x * 3u;
}

/* Ends in a tail call: "b shape_if_else", not "bl". */
SHAPE uint32_t shape_tail_call(uint32_t x)
{
    return shape_if_else((x ^ 0x33u) + 1u);
}

/* Two 32-bit constants loaded from a literal pool at the end of the
 * function ("ldr rN, [pc, #imm]"); GCC for cortex-m3 at -O2 prefers the
 * pool to movw/movt here, and the pool lies inside the symbol's size. */
SHAPE uint32_t shape_literal_pool(uint32_t x)
{
    return x * 0x12345677u + 0x9abcdef1u;
}

/* Two call sites (bl). */
SHAPE uint32_t shape_calls(uint32_t x)
{
    uint32_t a = shape_if_else(x);
    uint32_t b = shape_early_return(x ^ 5u);
    return a * 3u + b;
}

static volatile uint32_t inputs[] = {5, 37, 12, 9, 6, 41, 8, 22, 200, 0};

int main(void)
{
    uint32_t sum = 0;
    sum += shape_if_else(inputs[0]);
    sum += shape_if_else(inputs[2]);
    for (unsigned k = 0; k < 16; k++)
        sum += shape_switch(inputs[1] * 16u + k);
    sum += shape_nested_loops(inputs[3]);
    sum += shape_sibling_loops(inputs[4]);
    sum += shape_early_return(inputs[5]);
    sum += shape_early_return(inputs[8]);
    sum += shape_early_return(inputs[9]);
    sum += shape_early_return(inputs[6]);
    sum += shape_tail_call(inputs[7]);
    sum += shape_literal_pool(inputs[1]);
    sum += shape_calls(inputs[2]);

    char line[32];
    char *p = fmt_str(line, "cfg: ");
    p = fmt_dec(p, sum);
    fmt_str(p, "\n");
    sh_write0(line);
    return 0;
}
