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
    if (streq(mode, "spin"))
        spin_forever();
    if (streq(mode, "symbol")) {
        checkpoint_reached();
        spin_forever();
    }
    if (streq(mode, "host-open") || streq(mode, "host-read")) {
        /* host-open NAME: open NAME for writing and write to it; host-read NAME: open for reading. */
        int writing = streq(mode, "host-open");
        int fd = sh_open(arg, writing ? 4 /* "w" */ : 0 /* "r" */);
        int err = fd == -1 ? sh_errno() : 0;
        char *q = fmt_str(line, "faults: open=");
        q = fmt_int(q, fd);
        q = fmt_str(q, " errno=");
        q = fmt_int(q, err);
        fmt_str(q, "\n");
        sh_write0(line);
        if (fd != -1) {
            if (writing)
                sh_write(fd, "firmware\n", 9);
            sh_close(fd);
        }
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
        int fd = sh_open("out.txt", 4 /* "w" */);
        int err = fd == -1 ? sh_errno() : 0;
        char *q = fmt_str(line, "faults: open=");
        q = fmt_int(q, fd);
        q = fmt_str(q, " errno=");
        q = fmt_int(q, err);
        fmt_str(q, "\n");
        sh_write0(line);
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
