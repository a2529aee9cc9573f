/* The floating-point context across exceptions on a Cortex-M4F (ARMv7-M ARM B1.5.6-B1.5.8 with
 * the FP extension). Once thread code has used the FPU (CONTROL.FPCA = 1) an exception stacks an
 * extended frame: the 8 words, then S0-S15, FPSCR and a reserved word (0x68 bytes), and EXC_RETURN
 * says so with bit 4 clear (0xFFFFFFE1/E9/ED). The handler starts with FPCA = 0; the return
 * restores S0-S15 and FPSCR from the frame and sets FPCA to NOT EXC_RETURN[4].
 *
 * Part 1 ("handler"): a PendSV handler that overwrites S0-S15 and FPSCR, as any handler compiled
 * for hard float may, must leave the interrupted thread's values as they were; before the thread
 * has used the FPU the frame is the basic one.
 * Part 2 ("switch"): two threads on their own process stacks, switched by a PendSV written as the
 * FreeRTOS Cortex-M4F port writes it: it saves S16-S31 itself when EXC_RETURN[4] is clear and
 * keeps EXC_RETURN with the thread. Each thread fills all 32 registers and FPSCR with its own
 * pattern, yields, and checks them.
 *
 * With "eager" on the semihosting command line, FPCCR.LSPEN is cleared first: the FP words are
 * then written with the rest of the frame instead of at the handler's first FP instruction.
 *
 * The plain PendSV times its first FP instructions with the DWT cycle counter, read before and
 * after a call to them, for a basic frame and for an extended one: under lazy stacking the second
 * includes the 17 words the core writes there; eager stacking wrote them at the entry.
 *
 * Prints the two times, then "fp: ok" and exits 0, or prints the first failure and exits 1. */
#include <stdint.h>

#include "cortex_m.h"
#include "print.h"
#include "semihost.h"

#define FPCCR REG32(0xE000EF34u)
#define FPCCR_ASPEN (1u << 31)
#define FPCCR_LSPEN (1u << 30)
#define CONTROL_FPCA (1u << 2)

static const char *volatile first_failure;
static void check(int ok, const char *what) {
    if (!ok && !first_failure) first_failure = what;
}

/* 0 while part 1 runs: PendSV only overwrites registers. 1: PendSV switches threads. */
volatile uint32_t switching;

/* What the last plain PendSV saw. */
static volatile uint32_t seen_exc_return, seen_control, seen_fp_area_ok;
static const uint32_t *volatile expected_fp_area; /* S0-S15 then FPSCR, as the frame must hold them */
static const uint32_t garbage[16] = {0xDEAD0000u, 0xDEAD0001u, 0xDEAD0002u, 0xDEAD0003u, 0xDEAD0004u, 0xDEAD0005u,
                                     0xDEAD0006u, 0xDEAD0007u, 0xDEAD0008u, 0xDEAD0009u, 0xDEAD000Au, 0xDEAD000Bu,
                                     0xDEAD000Cu, 0xDEAD000Du, 0xDEAD000Eu, 0xDEAD000Fu};

/* The first FP instructions of the plain PendSV: where a lazily reserved frame gets S0-S15 and FPSCR. */
__attribute__((noinline)) static void overwrite_fp(void) {
    __asm__ volatile("vldmia %0, {s0-s15}\n\tvmsr fpscr, %1" ::"r"(garbage), "r"(0u) : "memory", "d0", "d1", "d2", "d3",
                     "d4", "d5", "d6", "d7");
}

/* The cycles overwrite_fp took in the last plain PendSV with a basic frame, and with an extended one. */
static volatile uint32_t fp_cycles_basic, fp_cycles_extended;

/* Called from PendSV_Handler with EXC_RETURN and the stack the frame was pushed to. */
__attribute__((used)) void pendsv_overwrite(uint32_t exc_return, const uint32_t *frame) {
    seen_exc_return = exc_return;
    seen_control = __get_CONTROL();
    uint32_t before = DWT_CYCCNT;
    overwrite_fp();
    uint32_t took = DWT_CYCCNT - before;
    if (exc_return & 0x10u)
        fp_cycles_basic = took;
    else
        fp_cycles_extended = took;
    const uint32_t *want = expected_fp_area;
    uint32_t ok = 1;
    if (want && !(exc_return & 0x10u))
        for (unsigned i = 0; i < 17; ++i) ok &= frame[8 + i] == want[i];
    seen_fp_area_ok = ok;
}

/* A handler that never uses the FPU: under lazy stacking its frame's FP area is never written, and
 * its return reads nothing back. */
static volatile uint32_t svc_calls;
void SVC_Handler(void) { svc_calls++; }

/* ---- part 2: two threads ---- */

#define THREAD_WORDS 256
static uint32_t stack_b[THREAD_WORDS] __attribute__((aligned(8)));
static uint32_t handler_stack[THREAD_WORDS] __attribute__((aligned(8)));
volatile uint32_t saved_sp[2];
volatile uint32_t current;
static volatile uint32_t b_rounds;

/* PendSV: the plain overwrite in part 1; a FreeRTOS-style switch in part 2. */
__attribute__((naked)) void PendSV_Handler(void) {
    __asm__ volatile(
        "ldr r1, =switching\n\t"
        "ldr r1, [r1]\n\t"
        "cbnz r1, 1f\n\t"
        "mov r0, lr\n\t"
        "tst lr, #4\n\t"
        "ite eq\n\t"
        "mrseq r1, msp\n\t"
        "mrsne r1, psp\n\t"
        "b pendsv_overwrite\n"
        "1:\n\t"
        "mrs r0, psp\n\t"
        "isb\n\t"
        "tst lr, #0x10\n\t"
        "it eq\n\t"
        "vstmdbeq r0!, {s16-s31}\n\t"
        "stmdb r0!, {r4-r11, lr}\n\t"
        "ldr r2, =current\n\t"
        "ldr r3, [r2]\n\t"
        "ldr r1, =saved_sp\n\t"
        "str r0, [r1, r3, lsl #2]\n\t"
        "eor r3, r3, #1\n\t"
        "str r3, [r2]\n\t"
        "ldr r0, [r1, r3, lsl #2]\n\t"
        "ldmia r0!, {r4-r11, lr}\n\t"
        "tst lr, #0x10\n\t"
        "it eq\n\t"
        "vldmiaeq r0!, {s16-s31}\n\t"
        "msr psp, r0\n\t"
        "isb\n\t"
        "bx lr\n\t"
        ".ltorg\n");
}

/* Fills S0-S31 and FPSCR from `in`, pends PendSV and lets it run, then stores S0-S31 and FPSCR to
 * `out`: one asm statement, so no compiled code between the two touches the registers. */
__attribute__((noinline)) static void fp_round_trip(const uint32_t *in, uint32_t *out) {
    uint32_t fpscr;
    __asm__ volatile(
        "vldmia %[in], {s0-s15}\n\t"
        "vldmia %[in_hi], {s16-s31}\n\t"
        "vmsr fpscr, %[fpscr_in]\n\t"
        "str %[pend], [%[icsr]]\n\t"
        "dsb\n\t"
        "isb\n\t"
        "vstmia %[out], {s0-s15}\n\t"
        "vstmia %[out_hi], {s16-s31}\n\t"
        "vmrs %[fpscr], fpscr\n\t"
        : [fpscr] "=&r"(fpscr)
        : [in] "r"(in), [in_hi] "r"(in + 16), [fpscr_in] "r"(in[32]), [out] "r"(out), [out_hi] "r"(out + 16),
          [pend] "r"(SCB_ICSR_PENDSVSET), [icsr] "r"(&SCB_ICSR)
        : "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13", "d14",
          "d15");
    out[32] = fpscr;
}

/* 32 register values and an FPSCR (round towards zero, flush-to-zero, and a thread's own cumulative
 * flags) that no other thread or handler uses. */
static void pattern(uint32_t *v, uint32_t thread, uint32_t round) {
    for (uint32_t i = 0; i < 32; ++i) v[i] = 0x3F800000u + (thread << 20) + (round << 12) + i;
    v[32] = (3u << 22) | (1u << 24) | (thread ? 0x1u : 0x10u);
}

static int same(const uint32_t *a, const uint32_t *b) {
    for (unsigned i = 0; i < 33; ++i)
        if (a[i] != b[i]) return 0;
    return 1;
}

static void thread_b(void) {
    uint32_t in[33], out[33];
    for (uint32_t round = 0; round < 3; ++round) {
        pattern(in, 1, round);
        fp_round_trip(in, out);
        check(same(in, out), "switch: thread B's S0-S31 or FPSCR changed across a switch");
        b_rounds = round + 1;
    }
    for (;;) { /* done: hand the core back */
        SCB_ICSR = SCB_ICSR_PENDSVSET;
        __asm__ volatile("dsb\n\tisb" ::: "memory");
    }
}

/* Before the thread's first FP instruction: a basic frame, and the handler's own FP use does not
 * give the thread a floating-point context. (Not inlined: the functions that clobber S16-S31 save
 * them with VPUSH in their prologue, an FP instruction.) */
__attribute__((noinline)) static void part_basic_frame(void) {
    SCB_ICSR = SCB_ICSR_PENDSVSET;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    check(seen_exc_return == 0xFFFFFFF9u, "handler: EXC_RETURN is not 0xFFFFFFF9 before the thread used the FPU");
    check((__get_CONTROL() & CONTROL_FPCA) == 0, "handler: CONTROL.FPCA set in the thread after a basic-frame return");
}

__attribute__((noinline)) static void part_handler(void) {
    uint32_t in[33], out[33];
    pattern(in, 0, 7);
    uint32_t area[17];
    for (unsigned i = 0; i < 16; ++i) area[i] = in[i];
    area[16] = in[32];
    expected_fp_area = area;
    fp_round_trip(in, out);
    expected_fp_area = 0;
    check(seen_exc_return == 0xFFFFFFE9u, "handler: EXC_RETURN is not 0xFFFFFFE9 after the thread used the FPU");
    check((seen_control & CONTROL_FPCA) == 0, "handler: CONTROL.FPCA set on entry to the handler");
    check(seen_fp_area_ok, "handler: the frame's S0-S15/FPSCR area does not hold the thread's values");
    check(same(in, out), "handler: the thread's S0-S31 or FPSCR changed across the handler");
    check((__get_CONTROL() & CONTROL_FPCA) != 0, "handler: CONTROL.FPCA clear after an extended-frame return");

    fp_round_trip(in, out); /* S0-S31 hold the pattern again */
    __asm__ volatile("svc #0" ::: "memory");
    check(svc_calls == 1, "handler: the SVC handler did not run");
    check((__get_CONTROL() & CONTROL_FPCA) != 0, "handler: CONTROL.FPCA clear after the SVC's extended-frame return");
}

__attribute__((noinline)) static void part_switch(void) {
    /* Thread B's first context: a basic frame (it has not used the FPU) under r4-r11 and its
     * EXC_RETURN, as a port's task-stack initialisation lays it out. */
    uint32_t *sp = stack_b + THREAD_WORDS - 8;
    for (unsigned i = 0; i < 8; ++i) sp[i] = 0;
    sp[5] = 0xFFFFFFFFu;                       /* LR: thread B never returns */
    sp[6] = (uint32_t)(uintptr_t)thread_b & ~1u; /* PC */
    sp[7] = 1u << 24;                          /* xPSR: Thumb */
    sp -= 9;
    for (unsigned i = 0; i < 8; ++i) sp[i] = 0;
    sp[8] = 0xFFFFFFFDu; /* thread mode, process stack, basic frame */
    saved_sp[1] = (uint32_t)(uintptr_t)sp;
    current = 0;

    /* This code becomes thread A: its stack, with this function's frame on it, becomes the process
     * stack, and handlers get a main stack of their own below nothing the thread uses. */
    __asm__ volatile("mrs r0, msp\n\t"
                     "msr psp, r0\n\t"
                     "mrs r0, control\n\t"
                     "orr r0, r0, #2\n\t"
                     "msr control, r0\n\t"
                     "isb\n\t"
                     "msr msp, %0" ::"r"(handler_stack + THREAD_WORDS)
                     : "r0", "memory");
    switching = 1;

    uint32_t in[33], out[33];
    for (uint32_t round = 0; round < 3; ++round) {
        pattern(in, 0, round);
        fp_round_trip(in, out);
        check(same(in, out), "switch: thread A's S0-S31 or FPSCR changed across a switch");
    }
    SCB_ICSR = SCB_ICSR_PENDSVSET; /* thread B finishes its last round */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    check(b_rounds == 3, "switch: thread B did not run its three rounds");
}

int main(void) {
    /* No FP instruction may come before this (UsageFault NOCP on the core). CPACR: full access to CP10 and CP11, before the first floating-point instruction. */
    *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    check((FPCCR & (FPCCR_ASPEN | FPCCR_LSPEN)) == (FPCCR_ASPEN | FPCCR_LSPEN), "FPCCR: ASPEN and LSPEN are not set out of reset");
    SCB_SHPR3 |= 0xFFu << 16; /* PendSV at the lowest priority */
    char cmdline[16];
    if (sh_get_cmdline(cmdline, sizeof cmdline) == 0 && cmdline[0] == 'e') FPCCR &= ~FPCCR_LSPEN;
    COREDEBUG_DEMCR |= COREDEBUG_DEMCR_TRCENA;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;

    part_basic_frame();
    part_handler();
    part_switch();

    if (first_failure) {
        char line[128];
        fmt_str(fmt_str(fmt_str(line, "fp: FAIL: "), first_failure), "\n");
        print_to_semihosting(line);
        return 1;
    }
    char line[128];
    fmt_str(fmt_dec(fmt_str(fmt_dec(fmt_str(line, "fp: a handler's first FP instructions took "), fp_cycles_basic),
                            " cycles after a basic frame, "),
                    fp_cycles_extended),
            " after an extended one\n");
    print_to_semihosting(line);
    print_to_semihosting("fp: ok\n");
    return 0;
}
