/* Exercises the Cortex-M exception model: NVIC priorities, preemption,
 * tail-chaining, PRIMASK/BASEPRI masking, SVC, PendSV, timed stimuli,
 * SysTick + WFI, HardFault escalation, lockup and SYSRESETREQ.
 *
 * The mode arrives on the semihosting command line. Every mode prints
 * "irq: mode=<mode>" and then a transcript of short lines; lines that
 * record an ordering are also kept in a log and compared with the
 * expected order at the end. Exit 0 = all self-checks passed; otherwise a
 * line "irq: FAIL: <what>" and exit 1.
 *
 * Pending an interrupt from software is followed by DSB + ISB wherever the
 * transcript relies on the exception being taken before the next line:
 * without them the architecture only promises "eventually". */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cortex_m.h"
#include "print.h"
#include "semihost.h"

#define UNMAPPED_ADDR 0x60000000u
#define CYCLES_PER_MS 25000u
/* How late (in cycles) a handler's first timestamp may be after the moment
 * its interrupt was raised: entry latency plus the call into sh_elapsed. */
#define LATENCY_SLACK 200u
/* Busy-wait iterations before giving up on a stimulus: several times the
 * wait needed, so a missing interrupt fails with a message instead of
 * running into the scenario's wall-clock limit. */
#define WAIT_SPINS 100000u

enum mode {
    M_NONE,
    M_NESTED,
    M_TAILCHAIN,
    M_PRIMASK,
    M_BASEPRI,
    M_SVC,
    M_PENDSV,
    M_STIMULUS,
    M_PERIODIC,
    M_WFI,
    M_HARDFAULT,
    M_LOCKUP,
    M_SYSRESET,
};

static const struct {
    const char *name;
    enum mode mode;
} modes[] = {
    {"nested", M_NESTED},       {"tailchain", M_TAILCHAIN}, {"primask", M_PRIMASK},
    {"basepri", M_BASEPRI},     {"svc", M_SVC},             {"pendsv", M_PENDSV},
    {"stimulus", M_STIMULUS},   {"periodic", M_PERIODIC},   {"wfi", M_WFI},
    {"hardfault", M_HARDFAULT}, {"lockup", M_LOCKUP},       {"sysreset", M_SYSRESET},
};

/* Handlers are shared by all modes and read this to know their role. */
static volatile enum mode mode;

/* ---- transcript and self-checks ---- */

#define LOG_MAX 16
#define LOG_LEN 32
static char event_log[LOG_MAX][LOG_LEN];
static volatile unsigned event_count;
static const char *volatile first_failure;

static int streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

static void fail(const char *what)
{
    /* The first failure is the informative one; later ones often follow
     * from it. */
    if (!first_failure)
        first_failure = what;
}

static void check(int ok, const char *what)
{
    if (!ok)
        fail(what);
}

/* Prints one transcript line and logs it. PRIMASK keeps line and log entry
 * together when a handler preempts the thread. */
static void ev(const char *s)
{
    uint32_t primask = __get_PRIMASK();
    __disable_irq();
    char line[LOG_LEN + 2];
    char *p = fmt_str(line, s);
    fmt_str(p, "\n");
    sh_write0(line);
    unsigned n = event_count;
    if (n < LOG_MAX) {
        char *d = event_log[n];
        for (unsigned i = 0; s[i] && i < LOG_LEN - 1; i++)
            *d++ = s[i];
        *d = '\0';
    }
    event_count = n + 1;
    __set_PRIMASK(primask);
}

static void say(const char *s)
{
    char line[80];
    fmt_str(fmt_str(line, s), "\n");
    sh_write0(line);
}

static void say_num(const char *a, uint32_t v, const char *b)
{
    char line[80];
    char *p = fmt_str(line, a);
    p = fmt_dec(p, v);
    fmt_str(fmt_str(p, b), "\n");
    sh_write0(line);
}

static void expect_events(const char *const *want, unsigned n)
{
    if (event_count != n) {
        fail("wrong number of transcript lines");
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        if (!streq(event_log[i], want[i])) {
            fail("transcript out of order");
            return;
        }
    }
}

#define EXPECT(...)                                                   \
    do {                                                              \
        static const char *const want_[] = {__VA_ARGS__};             \
        expect_events(want_, sizeof want_ / sizeof want_[0]);         \
    } while (0)

static int finish(void)
{
    if (first_failure) {
        char line[96];
        fmt_str(fmt_str(fmt_str(line, "irq: FAIL: "), first_failure), "\n");
        sh_write0(line);
        return 1;
    }
    return 0;
}

static uint32_t elapsed32(void)
{
    uint64_t t = sh_elapsed();
    /* Every mode finishes within a few ms of reset. */
    check(t >> 32 == 0, "SYS_ELAPSED beyond 32 bits");
    return (uint32_t)t;
}

static void sync_pend(void)
{
    __DSB();
    __ISB();
}

/* ---- handlers ---- */

void IRQ0_Handler(void)
{
    switch (mode) {
    case M_NESTED:
        ev("irq0 enter");
        nvic_set_pending(1);
        sync_pend();
        ev("irq0 exit");
        break;
    case M_TAILCHAIN:
        /* Only IRQ0 active: IRQ1 and IRQ2 finished before it was entered. */
        check(NVIC_IABR[0] == 1u, "tailchain: IABR wrong in irq0");
        ev("irq0");
        break;
    case M_PENDSV:
        SCB_ICSR = SCB_ICSR_PENDSVSET;
        sync_pend();
        /* PendSV has the lowest priority: still pending, not taken. */
        check((SCB_ICSR & SCB_ICSR_PENDSVSET) != 0, "pendsv: PENDSVSET not pending in irq0");
        ev("irq0");
        break;
    default:
        ev("irq0");
        break;
    }
}

void IRQ1_Handler(void)
{
    switch (mode) {
    case M_NESTED:
        /* Preempted IRQ0, so both are active; IRQ1 is exception 17. */
        check(NVIC_IABR[0] == 3u, "nested: IABR wrong in irq1");
        check(SCB_ICSR_VECTACTIVE(SCB_ICSR) == EXC_IRQ0 + 1, "nested: VECTACTIVE wrong in irq1");
        ev("irq1");
        break;
    case M_TAILCHAIN:
        /* Both lower priority than IRQ1: they wait for it to return. */
        NVIC_STIR = 0;
        NVIC_STIR = 2;
        sync_pend();
        check((NVIC_ISPR[0] & 5u) == 5u, "tailchain: STIR did not pend irq0/irq2");
        ev("irq1");
        break;
    default:
        ev("irq1");
        break;
    }
}

void IRQ2_Handler(void)
{
    /* Tail-chained from IRQ1, not nested: IRQ1 is no longer active. */
    check(NVIC_IABR[0] == 4u, "tailchain: IABR wrong in irq2");
    ev("irq2");
}

static volatile uint32_t irq3_cycle;
static volatile int irq3_seen;

void IRQ3_Handler(void)
{
    irq3_cycle = elapsed32();
    irq3_seen = 1;
}

#define PERIODIC_COUNT 5
static volatile uint32_t irq4_cycles[PERIODIC_COUNT];
static volatile unsigned irq4_count;

void IRQ4_Handler(void)
{
    uint32_t t = elapsed32();
    if (irq4_count < PERIODIC_COUNT)
        irq4_cycles[irq4_count] = t;
    irq4_count++;
}

static volatile uint32_t systicks;
/* SYST_CVR as the last SysTick handler began: how long after the tick it ran. */
static volatile uint32_t tick_cvr;

void SysTick_Handler(void)
{
    tick_cvr = SYST_CVR;
    systicks++;
}

void PendSV_Handler(void)
{
    /* Tail-chained after IRQ0 returned, before the thread resumed. */
    check(NVIC_IABR[0] == 0u, "pendsv: irq0 still active in PendSV");
    check((SCB_SHCSR & SCB_SHCSR_PENDSVACT) != 0, "pendsv: SHCSR.PENDSVACT clear in PendSV");
    ev("pendsv");
}

/* svc mode: a second SVC is issued from thread mode on this stack. */
#define PSP_WORDS 64
static uint32_t psp_stack[PSP_WORDS] __attribute__((aligned(8)));

/* Called from SVC_Handler with the exception frame and EXC_RETURN. */
__attribute__((used)) void svc_dispatch(uint32_t *frame, uint32_t exc_return)
{
    /* The stacked PC is the return address: the SVC is the halfword before
     * it (SVC is always a 16-bit encoding, 0xDFxx). */
    const uint16_t *pc = (const uint16_t *)(uintptr_t)frame[6];
    uint16_t insn = pc[-1];
    check((insn & 0xFF00u) == 0xDF00u, "svc: stacked PC does not follow an SVC");
    unsigned imm = insn & 0xFFu;

    int on_psp = (exc_return & EXC_RETURN_SPSEL) != 0;
    if (imm == 8) {
        check(on_psp, "svc: EXC_RETURN says MSP for the call made on PSP");
        check(frame == psp_stack + PSP_WORDS - 8, "svc: frame not at the top of the PSP stack");
    } else {
        check(!on_psp, "svc: EXC_RETURN says PSP for the call made on MSP");
    }
    check(SCB_ICSR_VECTACTIVE(SCB_ICSR) == EXC_SVCALL, "svc: VECTACTIVE is not SVCall");

    char line[LOG_LEN];
    fmt_dec(fmt_str(line, "svc "), imm);
    ev(line);
    frame[0] = 0x1234u; /* the caller's r0 after exception return */
}

/* Naked: the frame must be found before anything else touches the stack.
 * EXC_RETURN bit 2 says which stack the hardware pushed it to. */
__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("tst lr, #4\n"
                     "ite eq\n"
                     "mrseq r0, msp\n"
                     "mrsne r0, psp\n"
                     "mov r1, lr\n"
                     "b svc_dispatch\n");
}

void HardFault_Handler(void)
{
    if (mode == M_LOCKUP) {
        /* A fault at HardFault priority cannot be escalated any further:
         * the core locks up, and nothing after this load runs. */
        say("in hardfault, faulting again");
        (void)*(volatile uint32_t *)(UNMAPPED_ADDR + 4u);
        say("irq: FAIL: execution continued after a fault in HardFault");
        sh_exit(1);
    }

    uint32_t cfsr = SCB_CFSR, hfsr = SCB_HFSR, bfar = SCB_BFAR;
    char line[80];
    char *p = fmt_str(line, "cfsr=");
    p = fmt_hex32(p, cfsr);
    p = fmt_str(p, " hfsr=");
    p = fmt_hex32(p, hfsr);
    p = fmt_str(p, " bfar=");
    p = fmt_hex32(p, bfar);
    fmt_str(p, "\n");
    sh_write0(line);

    if (mode != M_HARDFAULT)
        fail("unexpected HardFault");
    /* BusFault is disabled (SHCSR.BUSFAULTENA=0), so the precise bus error
     * escalates to HardFault with FORCED set; the BFSR still records it. */
    check(cfsr == (SCB_CFSR_PRECISERR | SCB_CFSR_BFARVALID), "hardfault: CFSR is not PRECISERR|BFARVALID");
    check(hfsr == SCB_HFSR_FORCED, "hardfault: HFSR is not FORCED");
    check(bfar == UNMAPPED_ADDR, "hardfault: BFAR is not the faulting address");
    check(SCB_ICSR_VECTACTIVE(SCB_ICSR) == EXC_HARDFAULT, "hardfault: VECTACTIVE is not HardFault");
    sh_exit(finish());
}

/* ---- modes ---- */

static void run_nested(void)
{
    nvic_set_priority(0, 0xC0);
    nvic_set_priority(1, 0x40);
    nvic_enable_irq(0);
    nvic_enable_irq(1);
    nvic_set_pending(0);
    sync_pend();
    check(NVIC_IABR[0] == 0u, "nested: an IRQ still active in thread mode");
    ev("thread resumed");
    EXPECT("irq0 enter", "irq1", "irq0 exit", "thread resumed");
}

static void run_tailchain(void)
{
    nvic_set_priority(0, 0xC0);
    nvic_set_priority(1, 0x40);
    nvic_set_priority(2, 0x80);
    nvic_enable_irq(0);
    nvic_enable_irq(1);
    nvic_enable_irq(2);
    NVIC_STIR = 1;
    sync_pend();
    ev("thread resumed");
    EXPECT("irq1", "irq2", "irq0", "thread resumed");
}

static void run_primask(void)
{
    nvic_set_priority(0, 0xC0);
    nvic_set_priority(1, 0x40);
    nvic_enable_irq(0);
    nvic_enable_irq(1);
    __disable_irq();
    /* Pended in the opposite order to the one they must run in: priority,
     * not arrival, decides. */
    nvic_set_pending(0);
    nvic_set_pending(1);
    sync_pend();
    check((NVIC_ISPR[0] & 3u) == 3u, "primask: irq0/irq1 not both pending");
    check((SCB_ICSR & SCB_ICSR_ISRPENDING) != 0, "primask: ICSR.ISRPENDING clear");
    check(SCB_ICSR_VECTPENDING(SCB_ICSR) == EXC_IRQ0 + 1, "primask: VECTPENDING is not irq1");
    ev("masked");
    __enable_irq();
    __ISB();
    ev("unmasked");
    EXPECT("masked", "irq1", "irq0", "unmasked");
}

static void run_basepri(void)
{
    nvic_set_priority(0, 0xC0);
    nvic_set_priority(1, 0x40);
    nvic_enable_irq(0);
    nvic_enable_irq(1);
    /* Masks every priority value >= 0x80. */
    __set_BASEPRI(0x80);
    __ISB();
    check(__get_BASEPRI() == 0x80, "basepri: BASEPRI does not read back 0x80");
    nvic_set_pending(0);
    nvic_set_pending(1);
    sync_pend();
    check((NVIC_ISPR[0] & 3u) == 1u, "basepri: irq0 should be pending, irq1 taken");
    ev("basepri set");
    __set_BASEPRI(0);
    __ISB();
    ev("basepri cleared");
    EXPECT("irq1", "basepri set", "irq0", "basepri cleared");
}

static void print_svc_result(uint32_t r0)
{
    char line[LOG_LEN];
    fmt_hex32(fmt_str(line, "svc returned "), r0);
    ev(line);
    check(r0 == 0x1234u, "svc: handler's r0 did not reach the caller");
}

static void run_svc(void)
{
    register uint32_t r0 __asm__("r0") = 0;
    __asm__ volatile("svc #7" : "+r"(r0) : : "memory");
    print_svc_result(r0);

    /* Again from thread mode on PSP. The switch, the call and the switch
     * back sit in one asm block because the compiler's locals live on MSP. */
    uint32_t psp_top = (uint32_t)(uintptr_t)(psp_stack + PSP_WORDS);
    r0 = 0;
    __asm__ volatile("mrs r2, control\n"
                     "orr r3, r2, #2\n" /* CONTROL.SPSEL */
                     "msr psp, %1\n"
                     "msr control, r3\n"
                     "isb\n"
                     "svc #8\n"
                     "msr control, r2\n"
                     "isb\n"
                     : "+r"(r0)
                     : "r"(psp_top)
                     : "r2", "r3", "memory");
    print_svc_result(r0);
    EXPECT("svc 7", "svc returned 0x00001234", "svc 8", "svc returned 0x00001234");
}

static void run_pendsv(void)
{
    SCB_SHPR_BYTE(EXC_PENDSV) = 0xF0;
    check(SCB_SHPR3 == 0x00F00000u, "pendsv: SHPR3 does not read back 0x00f00000");
    nvic_set_priority(0, 0xC0);
    nvic_enable_irq(0);
    nvic_set_pending(0);
    sync_pend();
    check((SCB_ICSR & SCB_ICSR_PENDSVSET) == 0, "pendsv: PendSV still pending in thread");
    ev("thread resumed");
    EXPECT("irq0", "pendsv", "thread resumed");
}

static void run_stimulus(void)
{
    nvic_set_priority(3, 0x80);
    nvic_enable_irq(3);
    for (uint32_t spins = 0; !irq3_seen; spins++) {
        if (spins == WAIT_SPINS) {
            fail("stimulus: irq3 never arrived");
            return;
        }
    }
    uint32_t at = irq3_cycle;
    say_num("irq3 at cycle ", at, "");
    check(at >= CYCLES_PER_MS && at < CYCLES_PER_MS + LATENCY_SLACK,
          "stimulus: irq3 not taken at 1 ms (25000 cycles)");
}

static void run_periodic(void)
{
    nvic_set_priority(4, 0x80);
    nvic_enable_irq(4);
    for (uint32_t spins = 0; irq4_count < PERIODIC_COUNT; spins++) {
        if (spins == WAIT_SPINS) {
            fail("periodic: fewer than 5 irq4");
            return;
        }
    }
    nvic_disable_irq(4);
    for (unsigned k = 0; k < PERIODIC_COUNT; k++) {
        char line[64];
        char *p = fmt_str(line, "irq4 #");
        p = fmt_dec(p, k + 1);
        p = fmt_str(p, " at cycle ");
        p = fmt_dec(p, irq4_cycles[k]);
        fmt_str(p, "\n");
        sh_write0(line);
        uint32_t due = CYCLES_PER_MS / 10u + k * (CYCLES_PER_MS / 5u); /* 100 us + k * 200 us */
        check(irq4_cycles[k] >= due && irq4_cycles[k] < due + LATENCY_SLACK,
              "periodic: irq4 not taken at 100 us + k * 200 us");
    }
    check(irq4_count == PERIODIC_COUNT, "periodic: more than 5 irq4");
}

static void run_wfi(void)
{
    SYST_CSR = 0;
    SYST_RVR = CYCLES_PER_MS - 1u; /* 1 ms period */
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;

    uint32_t prev_wake = 0;
    uint32_t wake_cvr[3];
    for (unsigned k = 0; k < 3; k++) {
        /* Each wait starts just after the previous tick (or just after
         * SysTick started), so the tick cannot slip in between the check
         * and the WFI. */
        uint32_t before = systicks;
        uint32_t t0 = elapsed32();
        unsigned sleeps = 0;
        while (systicks == before) {
            if (k == 1) {
                /* A divide still executing as WFI comes: the core sleeps once it is
                 * done, and wakes at the tick all the same. */
                uint32_t q, n = 0xFFFFFFFFu, d = 3u;
                __asm__ volatile("udiv %0, %1, %2\n"
                                 "wfi"
                                 : "=r"(q)
                                 : "r"(n), "r"(d)
                                 : "memory");
                (void)q;
            } else {
                __WFI();
            }
            sleeps++;
        }
        uint32_t t1 = elapsed32();
        wake_cvr[k] = tick_cvr;
        say_num("woke after ", t1 - t0, " cycles");
        say_num("handler ran at SYST_CVR ", wake_cvr[k], "");
        /* The architecture lets WFI return early; an emulator that models
         * sleep should not, so one WFI per tick is the expectation here. */
        check(sleeps == 1, "wfi: WFI returned before the SysTick interrupt");
        check(t1 - t0 <= CYCLES_PER_MS + LATENCY_SLACK, "wfi: slept longer than one tick");
        if (k > 0) {
            uint32_t period = t1 - prev_wake;
            check(period + 50u >= CYCLES_PER_MS && period <= CYCLES_PER_MS + 50u,
                  "wfi: wake-ups not 25000 cycles apart");
        }
        prev_wake = t1;
    }
    SYST_CSR = 0;
    /* Asleep, the core waits for the tick: what it ran before WFI (a divide
     * in the second wait) does not move the wake-up. */
    check(wake_cvr[1] == wake_cvr[0] && wake_cvr[2] == wake_cvr[0], "wfi: the wake-up depends on what ran before WFI");
    say_num("ticks ", systicks, "");
    check(systicks == 3, "wfi: tick count is not 3");
}

int main(void)
{
    char cmdline[80];
    if (sh_get_cmdline(cmdline, sizeof cmdline) != 0)
        cmdline[0] = '\0';
    /* Only the first word is the mode. */
    for (char *c = cmdline; *c; c++) {
        if (*c == ' ') {
            *c = '\0';
            break;
        }
    }

    char line[96];
    fmt_str(fmt_str(fmt_str(line, "irq: mode="), cmdline), "\n");
    sh_write0(line);

    mode = M_NONE;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (streq(cmdline, modes[i].name))
            mode = modes[i].mode;
    }

    switch (mode) {
    case M_NESTED:
        run_nested();
        break;
    case M_TAILCHAIN:
        run_tailchain();
        break;
    case M_PRIMASK:
        run_primask();
        break;
    case M_BASEPRI:
        run_basepri();
        break;
    case M_SVC:
        run_svc();
        break;
    case M_PENDSV:
        run_pendsv();
        break;
    case M_STIMULUS:
        run_stimulus();
        break;
    case M_PERIODIC:
        run_periodic();
        break;
    case M_WFI:
        run_wfi();
        break;
    case M_HARDFAULT:
        (void)*(volatile uint32_t *)UNMAPPED_ADDR;
        say("irq: FAIL: the bus fault did not reach HardFault");
        return 1;
    case M_LOCKUP:
        say("about to fault");
        (void)*(volatile uint32_t *)UNMAPPED_ADDR;
        say("irq: FAIL: the bus fault did not reach HardFault");
        return 1;
    case M_SYSRESET:
        say("reset requested");
        __DSB(); /* let earlier writes complete before the reset */
        SCB_AIRCR = SCB_AIRCR_VECTKEY | SCB_AIRCR_SYSRESETREQ;
        __DSB();
        /* The reset is not instantaneous on silicon either; give it time. */
        for (volatile uint32_t i = 0; i < 100000u; i++) {
        }
        say("irq: FAIL: still running after SYSRESETREQ");
        return 1;
    case M_NONE:
        say("irq: unknown mode");
        return 2;
    }
    return finish();
}
