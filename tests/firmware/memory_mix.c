/* One loop reading words from two memories in turn: a table in flash and its copy in SRAM, and
 * the copy again from an odd address, each summed by the same function, for the block-cost
 * cache's test (tests/emu/timing_test.cpp). On a board whose memories differ in timing the
 * loop's blocks are alike every time but for their accesses' memories and alignments, which must
 * then key their runs. Each sum is timed with DWT_CYCCNT, and its value printed too.
 * Output: "cycles <memory> <N>" and "sum <memory> <value>" per memory, in three rounds. */
#include <stdint.h>

#include "measure.h"

static const uint32_t in_flash[48] = {
    3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4,
    3, 3, 8, 3, 2, 7, 9, 5, 0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3, 9, 9, 3, 7,
};
static uint32_t in_sram[49];

struct __attribute__((packed)) word {
    uint32_t value;
};

/* noipa: each call reads its pointer's memory, through the same code. */
__attribute__((noinline, noipa)) static uint32_t sum(const uint8_t *p, unsigned n)
{
    uint32_t s = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t w = ((const struct word *)(p + 4 * i))->value; /* an odd p: an unaligned ldr */
        s = s * 31u + w;
    }
    return s;
}

int main(void)
{
    static const char *const names[3] = {"flash", "sram", "sram_odd"};
    const uint8_t *tables[3] = {(const uint8_t *)in_flash, (const uint8_t *)in_sram, (const uint8_t *)in_sram + 1};
    for (unsigned i = 0; i < 48; i++) in_sram[i] = in_flash[i];
    print_timed_passes(sum, names, tables, 3, 48);
    return 0;
}
