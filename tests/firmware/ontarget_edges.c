/* The on-target tracer's hard cases (docs/ontarget.md), built with exits by return-address
 * manipulation and a shadow stack of 16 entries:
 *   - recursion 24 deep: the calls past the shadow stack's depth have no exit event, and the
 *     program still returns right through the others;
 *   - longjmp out of 6 nested calls: their exits are recorded when the trampoline next runs
 *     (the frames it finds abandoned), and returns after it go where they should;
 *   - an interrupt handler (SysTick) whose functions nest inside the interrupted ones.
 * Exits 0 when every result is right. */
#include <setjmp.h>
#include <stdint.h>

#include "cortex_m.h"
#include "emutrace_trace.h"
#include "print.h"
#include "semihost.h"

static jmp_buf env;
static volatile uint32_t ticks;
static volatile int jump = 1;

__attribute__((noinline)) static int deep(int n)
{
    if (n == 0)
        return 0;
    return 1 + deep(n - 1);
}

__attribute__((noinline)) static int thrower(int n)
{
    if (n == 0) {
        if (jump)
            longjmp(env, 7);
        return 0;
    }
    return thrower(n - 1) + 1; /* does not return: the innermost call jumps */
}

__attribute__((noinline)) static void count_tick(void)
{
    ticks++;
}

void SysTick_Handler(void)
{
    count_tick();
}

int main(void)
{
    et_init(0);
    SYST_RVR = 2000 - 1;
    SYST_CVR = 0;
    SYST_CSR = 7; /* core clock, interrupt, enable */
    int d = deep(24);
    volatile int v = setjmp(env);
    if (v == 0)
        thrower(5);
    int d2 = deep(3);
    et_event(42, (uint32_t)(d + d2));
    SYST_CSR = 0;
    char line[80];
    char *p = fmt_str(line, "deep ");
    p = fmt_dec(p, (uint32_t)d);
    p = fmt_str(p, " jumped ");
    p = fmt_dec(p, (uint32_t)v);
    p = fmt_str(p, " deep ");
    p = fmt_dec(p, (uint32_t)d2);
    p = fmt_str(p, " ticks ");
    p = fmt_dec(p, ticks);
    fmt_str(p, "\n");
    print_to_semihosting(line);
    sh_exit(d == 24 && v == 7 && d2 == 3 && ticks > 0 && ticks < 1000 ? 0 : 1);
}
