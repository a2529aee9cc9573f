/* Bytes and halfwords read at offsets a generator picks, from a table in flash and its copy in
 * SRAM, for the block-cost cache's test (tests/emu/timing_test.cpp). Timing tells an aligned
 * byte or halfword at one offset of a word from another at a second offset in nothing, so the
 * loop's runs must key alike whatever the offsets: on a board whose memories differ in timing
 * (every access hooked) they then follow on from one another. Each pass is timed with
 * DWT_CYCCNT, and its sum printed too.
 * Output: "cycles <memory> <N>" and "sum <memory> <value>" per memory, in three rounds. */
#include <stdint.h>

#include "measure.h"

static const uint8_t in_flash[64] = {
    3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5,
    0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3, 9, 9, 3, 7, 5, 1, 0, 5, 8, 2, 0, 9, 7, 4, 9, 4, 4, 5, 9, 2,
};
static uint8_t in_sram[64];

/* noipa: each call reads its pointer's memory, through the same code. */
__attribute__((noinline, noipa)) static uint32_t scatter(const uint8_t *p, unsigned n)
{
    uint32_t s = 0, x = 12345u;
    for (unsigned i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        unsigned at = (x >> 16) & 63u;
        s = s * 31u + p[at];
        s += *(const uint16_t *)(p + (at & ~1u)); /* an aligned halfword, at offset 0 or 2 */
    }
    return s;
}

int main(void)
{
    static const char *const names[2] = {"flash", "sram"};
    const uint8_t *tables[2] = {in_flash, in_sram};
    for (unsigned i = 0; i < 64; i++) in_sram[i] = in_flash[i];
    print_timed_passes(scatter, names, tables, 2, 256);
    return 0;
}
