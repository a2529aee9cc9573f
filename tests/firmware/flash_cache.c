/* Code that fits a CC26x2's 8 KiB flash cache and code that does not, each run several times with
 * DWT_CYCCNT read around every pass, for tests/emu/flash_cache_test.cpp: what the cache's misses
 * cost on the cc2652 board, against the same board without its cache.
 *
 * Each body is a straight run of NOPs, aligned to a 16-byte flash line, so that its fetch is
 * sequential: a pass over `fits` (2 KiB of 16-bit NOPs) or `wide` (4 KiB of 32-bit ones) misses on
 * its first run only; a pass over `too_big` (12 KiB) misses on every run, its lines evicted by its
 * own later ones.
 *
 * `literals_flash` and `literals_sram` run the same straight code, 64 times a load and three NOPs
 * (a cache line of code each), loading a word from the flash or from SRAM: with the cache on, a
 * read from the flash passes the cache's line buffer and tag lookup as the fetch does.
 *
 * `table_fits` and `table_too_big` read a word from every cache line of a table in the flash,
 * 2048 reads each: over its first KiB 16 times, or once over 16 KiB, which the cache cannot hold.
 *
 * Output: one line "pass <name> <n> <cycles>" per pass. */
#include <stdint.h>

#include "cortex_m.h"
#include "print.h"

#define PASSES 4
#define NOPS(n) __asm volatile(".rept " #n "\n\tnop\n\t.endr" ::: "memory")
#define WIDE_NOPS(n) __asm volatile(".rept " #n "\n\tnop.w\n\t.endr" ::: "memory")

__attribute__((noinline, aligned(16))) static void fits(void) { NOPS(1024); }
__attribute__((noinline, aligned(16))) static void too_big(void) { NOPS(6144); }
__attribute__((noinline, aligned(16))) static void wide(void) { WIDE_NOPS(1024); }

static const uint32_t flash_word __attribute__((aligned(64))) = 0x600DF00D;
static volatile uint32_t sram_word = 0x600DF00D;

__attribute__((noinline, aligned(16))) static void load_64(const volatile uint32_t *word)
{
    __asm volatile(".rept 64\n\tldr r3, [%0]\n\tnop\n\tnop\n\tnop\n\t.endr" ::"l"(word) : "r3", "memory");
}
static void literals_flash(void) { load_64(&flash_word); }
static void literals_sram(void) { load_64(&sram_word); }

static const uint32_t table[4096] = {1};
static volatile uint32_t table_sum;

static void read_table(unsigned words, unsigned times)
{
    const volatile uint32_t *t = table;
    uint32_t sum = 0;
    for (unsigned k = 0; k < times; k++)
        for (unsigned i = 0; i < words; i += 2) sum += t[i];
    table_sum = sum;
}
static void table_fits(void) { read_table(256, 16); }
static void table_too_big(void) { read_table(4096, 1); }

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
    measure("wide", wide);  /* with `fits`, 6 KiB: no set is full yet */
    measure("too_big", too_big);
    measure("literals_flash", literals_flash);
    measure("literals_sram", literals_sram);
    measure("table_fits", table_fits);
    measure("table_too_big", table_too_big);
    return 0;
}
