/* The conditional returns, indirect branches and tail calls that GCC and
 * libgcc emit, each in a function of its own whose code is fixed by
 * hand (naked, so no compiler chooses the layout): the CFG must give
 * each conditional exit a fall-through edge, and at run time a return
 * or jump that fails its condition must not be reported as taken
 * (tests/decode/program_test.cpp, tests/analysis/cond_returns_test.cpp).
 *
 *   cr_it_bx        cmp; it gt; bxgt lr; adds; adds; bx lr
 *   cr_it_pop       push {r4, lr}; ...; it ne; popne {r4, pc}; ...; pop {r4, pc}
 *   cr_it_ldr_pc    push {lr}; ...; it eq; ldreq pc, [sp], #4; ...; pop {pc}
 *   cr_ite_bx       ite eq; moveq r0, #7; bxne lr; ...; bx lr
 *   cr_it_bx_reg    it ne; bxne r2 (a conditional indirect tail call); ...; bx lr
 *   cr_it_b         it eq; beq.w (a branch inside an IT block, inside the function)
 *   cr_it_tail      it ne; bne.w cr_it_bx (a conditional tail call)
 *   cr_b_tail       b.w cr_it_bx (an unconditional tail call)
 *   cr_cbz_ret      cbz r0, 1f; bx lr; 1: ...; bx lr
 *   cr_two_entries  a cycle entered at two blocks (no natural loop)
 *
 * Output: one line "cond_returns: <sum>". */
#include <stdint.h>

#include "print.h"
#include "semihost.h"

/* Naked functions read their parameters in assembly. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define NAKED __attribute__((naked, noinline, noclone))

/* r0 > 0: returns r0; otherwise r0 + 2. */
NAKED uint32_t cr_it_bx(uint32_t x)
{
    __asm volatile(
        "cmp r0, #0\n"
        "it gt\n"
        "bxgt lr\n"
        "adds r0, #1\n"
        "adds r0, #1\n"
        "bx lr\n");
}

/* r0 != 0: returns r0 + 5; otherwise a loop of 8 adds. */
NAKED uint32_t cr_it_pop(uint32_t x)
{
    __asm volatile(
        "push {r4, lr}\n"
        "adds r0, #5\n"
        "cmp r0, #5\n"
        "it ne\n"
        "popne {r4, pc}\n"
        "movs r4, #8\n"
        "1:\n"
        "adds r0, #3\n"
        "subs r4, #1\n"
        "bne 1b\n"
        "pop {r4, pc}\n");
}

/* r0 == 0: returns 0; otherwise r0 * 3. */
NAKED uint32_t cr_it_ldr_pc(uint32_t x)
{
    __asm volatile(
        "push {lr}\n"
        "cmp r0, #0\n"
        "it eq\n"
        "ldreq pc, [sp], #4\n"
        "adds r1, r0, r0\n"
        "adds r0, r0, r1\n"
        "pop {pc}\n");
}

/* r0 == 0: returns 7 + 11; otherwise r0 unchanged. */
NAKED uint32_t cr_ite_bx(uint32_t x)
{
    __asm volatile(
        "cmp r0, #0\n"
        "ite eq\n"
        "moveq r0, #7\n"
        "bxne lr\n"
        "adds r0, #11\n"
        "bx lr\n");
}

/* r1 != 0: a tail call through r2 (its result); otherwise r0 + 1. */
NAKED uint32_t cr_it_bx_reg(uint32_t x, uint32_t call, uint32_t (*f)(uint32_t))
{
    __asm volatile(
        "cmp r1, #0\n"
        "it ne\n"
        "bxne r2\n"
        "adds r0, #1\n"
        "bx lr\n");
}

/* r0 == 1: returns 100; otherwise r0 + 4. */
NAKED uint32_t cr_it_b(uint32_t x)
{
    __asm volatile(
        "cmp r0, #1\n"
        "it eq\n"
        "beq.w 2f\n"
        "adds r0, #2\n"
        "adds r0, #2\n"
        "bx lr\n"
        "2:\n"
        "movs r0, #100\n"
        "bx lr\n");
}

/* r0 != 3: a tail call of cr_it_bx; otherwise 33. */
NAKED uint32_t cr_it_tail(uint32_t x)
{
    __asm volatile(
        "cmp r0, #3\n"
        "it ne\n"
        "bne.w cr_it_bx\n"
        "movs r0, #33\n"
        "bx lr\n");
}

/* Always a tail call of cr_it_bx, after some work. */
NAKED uint32_t cr_b_tail(uint32_t x)
{
    __asm volatile(
        "adds r0, #9\n"
        "lsls r0, r0, #1\n"
        "b.w cr_it_bx\n");
}

/* r0 != 0: returns r0; otherwise 42. */
NAKED uint32_t cr_cbz_ret(uint32_t x)
{
    __asm volatile(
        "cbz r0, 1f\n"
        "bx lr\n"
        "1:\n"
        "movs r0, #42\n"
        "bx lr\n");
}

/* A cycle with two entries (irreducible: neither block dominates the
 * other), as a goto into a loop makes: r0 == 0 enters at 2:, otherwise
 * at 1:. Returns the count reached, 10 or 12. */
NAKED uint32_t cr_two_entries(uint32_t x)
{
    __asm volatile(
        "movs r1, #0\n"
        "cmp r0, #0\n"
        "beq 2f\n"
        "1:\n"
        "adds r1, #2\n"
        "2:\n"
        "adds r1, #1\n"
        "cmp r1, #10\n"
        "blt 1b\n"
        "mov r0, r1\n"
        "bx lr\n");
}

__attribute__((noinline)) static uint32_t cr_driver(uint32_t round)
{
    uint32_t sum = 0;
    for (int32_t x = -2; x <= 4; ++x) {
        uint32_t v = (uint32_t)x + round;
        sum += cr_it_bx(v);
        sum += cr_it_pop(v);
        sum += cr_it_ldr_pc(v);
        sum += cr_ite_bx(v);
        sum += cr_it_bx_reg(v, v & 1u, cr_it_bx);
        sum += cr_it_b(v);
        sum += cr_it_tail(v);
        sum += cr_b_tail(v);
        sum += cr_cbz_ret(v);
        sum += cr_two_entries(v & 1u);
    }
    return sum;
}

int main(void)
{
    uint32_t sum = 0;
    for (uint32_t round = 0; round < 50; ++round) sum += cr_driver(round & 3u);
    char line[48];
    char *p = fmt_str(line, "cond_returns: ");
    p = fmt_dec(p, sum);
    fmt_str(p, "\n");
    print_to_semihosting(line);
    return 0;
}
