/* Code that fits a CC26x2's 8 KiB flash cache and code that does not, each run several times with
 * DWT_CYCCNT read around every pass, for tests/emu/flash_cache_test.cpp: what the cache's misses
 * cost on the cc2652 board, against the same board without its cache.
 *
 * Each body is a straight run of 16-bit NOPs, aligned to a 16-byte flash line, so that its fetch
 * is sequential: a pass over `fits` (2 KiB) misses on its first run only; a pass over `too_big`
 * (12 KiB) misses on every run, its lines evicted by its own later ones.
 *
 * Output: one line "pass <name> <n> <cycles>" per pass. */
#include <stdint.h>

#include "cortex_m.h"
#include "print.h"

#define PASSES 4
#define NOPS(n) __asm volatile(".rept " #n "\n\tnop\n\t.endr" ::: "memory")

__attribute__((noinline, aligned(16))) static void fits(void) { NOPS(1024); }
__attribute__((noinline, aligned(16))) static void too_big(void) { NOPS(6144); }

static void report(const char *name, unsigned pass, uint32_t cycles)
{
    char line[64];
    char *p = fmt_str(line, "pass ");
    p = fmt_str(p, name);
    p = fmt_str(p, " ");
    p = fmt_dec(p, pass);
    p = fmt_str(p, " ");
    p = fmt_dec(p, cycles);
    fmt_str(p, "\n");
    print_to_semihosting(line);
}

static void measure(const char *name, void (*body)(void))
{
    for (unsigned pass = 0; pass < PASSES; pass++) {
        uint32_t start = DWT_CYCCNT;
        body();
        report(name, pass, DWT_CYCCNT - start);
    }
}

int main(void)
{
    dwt_cyccnt_start();
    measure("fits", fits);
    measure("too_big", too_big);
    return 0;
}
