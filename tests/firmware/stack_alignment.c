/* Writes of unaligned values to SP, for tests/emu/stack_alignment_test.cpp. ARMv7-M keeps the
 * stack pointers word-aligned: bits [1:0] of SP (MSP, PSP) read as zero whatever was written
 * (ARM DDI 0403, B1.4.1). Each case saves SP, writes it one way, reads it back at once (or a
 * branch later, or through a load relative to it) and restores it.
 *
 * Output: one line "<case> <value read back>" per case. */
#include <stdint.h>

#include "print.h"

static void report(const char *name, uint32_t value)
{
    char line[64];
    char *p = fmt_str(line, name);
    p = fmt_str(p, " ");
    p = fmt_hex32(p, value);
    fmt_str(p, "\n");
    print_to_semihosting(line);
}

/* Both words are read as [sp, #4] from a stack pointer set to `words` + 3: silicon reads the
 * second (SP is `words`), an unaligned SP would read across them. */
static volatile uint32_t words[3] __attribute__((aligned(8))) = {0x11111111u, 0x22222222u, 0x33333333u};
static volatile uint32_t loaded_sp;

int main(void)
{
    uint32_t value = (uint32_t)&words[0] + 3, out = 0, saved = 0;

    __asm volatile("mov %0, sp\n\tmov sp, %2\n\tmov %1, sp\n\tmov sp, %0" : "=&l"(saved), "=&l"(out) : "l"(value));
    report("mov_sp", out - (uint32_t)&words[0]);

    __asm volatile("mov %0, sp\n\tmov sp, %2\n\tmovs r3, #1\n\tadd sp, r3\n\tmov %1, sp\n\tmov sp, %0"
                   : "=&l"(saved), "=&l"(out)
                   : "l"((uint32_t)&words[0])
                   : "r3");
    report("add_sp_register", out - (uint32_t)&words[0]);

    __asm volatile("mov %0, sp\n\tmov sp, %2\n\tadd.w sp, sp, #2\n\tmov %1, sp\n\tmov sp, %0"
                   : "=&l"(saved), "=&l"(out)
                   : "l"((uint32_t)&words[0])
                   : "memory");
    report("add_sp_immediate", out - (uint32_t)&words[0]);

    /* The write ends its block: SP is read in the next one. */
    __asm volatile("mov %0, sp\n\tmov sp, %2\n\tb 1f\n1:\n\tmov %1, sp\n\tmov sp, %0" : "=&l"(saved), "=&l"(out) : "l"(value));
    report("mov_sp_then_branch", out - (uint32_t)&words[0]);

    /* A load relative to SP right behind the write. */
    __asm volatile("mov %0, sp\n\tmov sp, %2\n\tldr %1, [sp, #4]\n\tmov sp, %0" : "=&l"(saved), "=&l"(out) : "l"(value) : "memory");
    report("ldr_sp_relative", out);

    /* SP loaded from memory. */
    loaded_sp = value;
    __asm volatile("mov %0, sp\n\tldr.w sp, [%2]\n\tmov %1, sp\n\tmov sp, %0" : "=&l"(saved), "=&l"(out) : "l"(&loaded_sp) : "memory");
    report("ldr_into_sp", out - (uint32_t)&words[0]);

    /* The process stack pointer, not in use, written by MSR and read by MRS. */
    __asm volatile("msr psp, %1\n\tmrs %0, psp" : "=&l"(out) : "l"(value));
    report("msr_psp", out - (uint32_t)&words[0]);

    /* In an IT block whose condition passes. */
    __asm volatile("mov %0, sp\n\tcmp %2, %2\n\tit eq\n\tmoveq sp, %2\n\tmov %1, sp\n\tmov sp, %0"
                   : "=&l"(saved), "=&l"(out)
                   : "l"(value)
                   : "cc");
    report("it_mov_sp", out - (uint32_t)&words[0]);
    (void)saved;
    return 0;
}
