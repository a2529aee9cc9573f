/* Misbehaves on purpose so the emulator's fault, limit and semihosting
 * handling can be tested. The mode arrives on the semihosting command
 * line: "<mode>" or "<mode> <decimal>". Modes that fault print
 * "faults: survived" if the emulator lets execution continue. */
#include <stdint.h>
#include <string.h>

#include "print.h"
#include "semihost.h"

#define UNMAPPED_ADDR 0x60000000u
#define MMIO_UNCLAIMED_ADDR 0x40020000u

/* Global and "used" so it stays in flash as a real object to write to. */
__attribute__((used)) const uint32_t faults_rom_word = 0xC0FFEE00u;

volatile uint32_t spin_counter;
volatile uint32_t checkpoint_hits;

/* Runs from RAM (see .ramfunc in the linker script); a scenario that maps
 * RAM without execute permission must fault on the fetch. */
__attribute__((section(".ramfunc"), noinline)) static uint32_t ramfunc(uint32_t x)
{
    return x * 3u + 1u;
}

/* Tests stop the run when execution reaches this symbol; noipa keeps it
 * a real, separately callable function. */
__attribute__((noinline, noipa)) void checkpoint_reached(void)
{
    checkpoint_hits++;
}

static _Noreturn void spin_forever(void)
{
    for (;;)
        spin_counter++;
}

static int streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* Opens a host file through semihosting and prints "faults: open=<fd> errno=<errno>". */
static int open_and_report(const char *name, int mode)
{
    char line[96];
    int fd = sh_open(name, mode);
    int err = fd == -1 ? sh_errno() : 0;
    char *q = fmt_str(line, "faults: open=");
    q = fmt_int(q, fd);
    q = fmt_str(q, " errno=");
    q = fmt_int(q, err);
    fmt_str(q, "\n");
    sh_write0(line);
    return fd;
}

/* Hostile firmware (the emulator must end each with one line and what was traced so far). */

/* Recursion with no end, a kilobyte of stack a call, until the stack leaves RAM. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
__attribute__((noinline)) static uint32_t recurse(uint32_t depth)
{
    volatile uint8_t frame[1024];
    frame[0] = (uint8_t)depth;
    frame[1023] = (uint8_t)(depth >> 8);
    return recurse(depth + 1) + frame[0] + frame[1023];
}
#pragma GCC diagnostic pop

/* An undefined instruction (udf #0xfe) kept in flash as data. */
__attribute__((used, aligned(4))) const uint16_t faults_data_code[2] = {0xdefe, 0xdefe};

/* SysTick every few cycles: the handler only counts, and the main code barely moves. */
volatile uint32_t storm_count;
void SysTick_Handler(void)
{
    storm_count++;
}

#define SCS_VTOR (*(volatile uint32_t *)0xE000ED08u)
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

/* Code written into RAM and run, rewritten and run again: movs r0, #N; bx lr. */
static uint16_t smc_code[4] __attribute__((aligned(4)));
static uint32_t run_smc(uint8_t n)
{
    smc_code[0] = (uint16_t)(0x2000u | n); /* movs r0, #n */
    smc_code[1] = 0x4770u;                 /* bx lr */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    uint32_t (*fn)(void) = (uint32_t (*)(void))((uintptr_t)smc_code | 1u);
    return fn();
}

static int32_t parse_int(const char *s)
{
    int neg = 0;
    uint32_t v = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    while (*s >= '0' && *s <= '9')
        v = v * 10u + (uint32_t)(*s++ - '0');
    return neg ? (int32_t)(0u - v) : (int32_t)v;
}

/* An assert as FreeRTOS's ports write it (configASSERT): interrupts
 * masked and a for(;;) when the check fails, a return otherwise. */
#define CHECK_OR_HANG(x)                             \
    do {                                             \
        if (!(x)) {                                  \
            __asm__ volatile("cpsid i" ::: "memory"); \
            for (;;) {                               \
            }                                        \
        }                                            \
    } while (0)

__attribute__((noinline)) static uint32_t priority_bits(uint32_t priority)
{
    CHECK_OR_HANG((priority & 0x0Fu) == 0); /* the NVIC implements the top four bits */
    return priority >> 4;
}

/* A trap with no way out, by design: no assert. */
__attribute__((noinline, noreturn)) static void trap_forever(void)
{
    __asm__ volatile("cpsid i" ::: "memory");
    for (;;) {
    }
}

static int survived(void)
{
    sh_write0("faults: survived\n");
    return 0;
}

int main(void)
{
    char cmdline[80];
    if (sh_get_cmdline(cmdline, sizeof cmdline) != 0)
        cmdline[0] = '\0';

    /* Split "<mode> <arg>" in place. */
    char *mode = cmdline;
    const char *arg = "";
    for (char *c = cmdline; *c; c++) {
        if (*c == ' ') {
            *c = '\0';
            arg = c + 1;
            break;
        }
    }

    char line[128];
    char *p = fmt_str(line, "faults: mode=");
    p = fmt_str(p, mode);
    fmt_str(p, "\n");
    sh_write0(line);

    if (streq(mode, "unmapped-read")) {
        (void)*(volatile uint32_t *)UNMAPPED_ADDR;
        return survived();
    }
    if (streq(mode, "unmapped-write")) {
        *(volatile uint32_t *)UNMAPPED_ADDR = 0x1u;
        return survived();
    }
    if (streq(mode, "rom-write")) {
        volatile uint32_t *rom = (volatile uint32_t *)(uintptr_t)&faults_rom_word;
        /* Hide the pointer's origin so the store cannot be dropped as a
         * write to a const object. */
        __asm__ volatile("" : "+r"(rom));
        *rom = 0x1u;
        return survived();
    }
    if (streq(mode, "undef")) {
        __asm__ volatile(".short 0xde00" ::: "memory"); /* udf #0 */
        return survived();
    }
    if (streq(mode, "nx-fetch")) {
        /* Through a pointer: a direct BL cannot reach RAM from flash. */
        uint32_t (*volatile fn)(uint32_t) = ramfunc;
        char *q = fmt_str(line, "faults: ramfunc=");
        q = fmt_dec(q, fn(1));
        fmt_str(q, "\n");
        sh_write0(line);
        return survived();
    }
    if (streq(mode, "mmio-unclaimed")) {
        uint32_t v = *(volatile uint32_t *)MMIO_UNCLAIMED_ADDR;
        char *q = fmt_str(line, "faults: mmio read=");
        q = fmt_hex32(q, v);
        fmt_str(q, "\n");
        sh_write0(line);
        return 0;
    }
    if (streq(mode, "exit"))
        return parse_int(arg);
    if (streq(mode, "hang")) {
        /* Interrupts off plus a branch-to-self: the emulator can tell
         * that nothing will ever change. */
        __asm__ volatile("cpsid i" ::: "memory");
        for (;;) {
        }
    }
    if (streq(mode, "assert")) {
        uint32_t ok = priority_bits(0xA0u); /* passes */
        return (int)priority_bits(ok | 0x05u); /* fails */
    }
    if (streq(mode, "trap"))
        trap_forever();
    if (streq(mode, "spin"))
        spin_forever();
    if (streq(mode, "symbol")) {
        checkpoint_reached();
        spin_forever();
    }
    if (streq(mode, "host-open") || streq(mode, "host-read")) {
        /* host-open NAME: open NAME for writing and write to it; host-read NAME: open for reading. */
        int writing = streq(mode, "host-open");
        int fd = open_and_report(arg, writing ? 4 /* "w" */ : 0 /* "r" */);
        if (fd != -1) {
            if (writing)
                sh_write(fd, "firmware\n", 9);
            sh_close(fd);
        }
        return 0;
    }
    if (streq(mode, "stack-overflow"))
        return (int)recurse(0);
    if (streq(mode, "jump-unmapped")) {
        void (*fn)(void) = (void (*)(void))(UNMAPPED_ADDR | 1u);
        __asm__ volatile("" : "+r"(fn));
        fn();
        return survived();
    }
    if (streq(mode, "jump-data")) {
        void (*fn)(void) = (void (*)(void))((uintptr_t)faults_data_code | 1u);
        __asm__ volatile("" : "+r"(fn));
        fn();
        return survived();
    }
    if (streq(mode, "vtor-unmapped")) {
        /* The vector table moved where nothing is mapped, then an exception. */
        SCS_VTOR = UNMAPPED_ADDR;
        __asm__ volatile("svc #1" ::: "memory");
        return survived();
    }
    if (streq(mode, "irq-storm")) {
        SYST_RVR = 2;
        SYST_CVR = 0;
        SYST_CSR = 7; /* enable, interrupt, core clock */
        for (;;)
            spin_counter++;
    }
    if (streq(mode, "smc")) {
        uint32_t first = run_smc(1), second = run_smc(2);
        char *q = fmt_str(line, "faults: smc ");
        q = fmt_dec(q, first);
        q = fmt_str(q, " ");
        q = fmt_dec(q, second);
        fmt_str(q, "\n");
        sh_write0(line);
        return 0;
    }
    if (streq(mode, "host-spam")) {
        /* A refused call in a loop: ARG times. */
        int32_t n = parse_int(arg);
        for (int32_t i = 0; i < n; i++)
            sh_open("out.txt", 4);
        sh_write0("faults: spammed\n");
        return 0;
    }
    if (streq(mode, "host-file")) {
        int fd = open_and_report("out.txt", 4 /* "w" */);
        if (fd != -1) {
            static const char msg[] = "hello host\n";
            sh_write(fd, msg, sizeof msg - 1);
            sh_close(fd);
        }
        return 0;
    }
    if (streq(mode, "svc")) {
        __asm__ volatile("svc #5" ::: "memory");
        return survived();
    }
    if (streq(mode, "clock")) {
        for (volatile uint32_t i = 0; i < 100000u; i++) {
        }
        char *q = fmt_str(line, "faults: clock=");
        q = fmt_dec(q, sh_clock());
        fmt_str(q, "\n");
        sh_write0(line);
        return 0;
    }
    sh_write0("faults: unknown mode\n");
    return 2;
}
