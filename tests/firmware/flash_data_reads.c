/* Data reads from a CC26x2's flash behind its VIMS, cache off (VIMS_CTL mode 3, as the CMEmu
 * silicon tests run), for tests/emu/flash_data_reads_test.cpp. Code runs from the flash too.
 *
 * With the line buffer on, unaligned loads: the core's aligner splits an unaligned word into the
 * largest aligned pieces, in address order (a word at 1 mod 4: byte, halfword, byte), and the
 * flash's 16-byte line buffer reads a line once for every piece in it. A word at 16n+9 (pieces
 * at 9, 10, 12) stays in its line as one at 16n+1 does; one at 16n+13 (13, 14, 16) reads the
 * next line too. Each case reads another line first, so that the buffer holds neither line.
 *
 * With the line buffers off (VIMS_CTL IDCODE_LB_DIS), every read waits for the flash: one load,
 * and two in a row, the second entering in the first's data phase.
 *
 * Each case is timed twice; the second is reported.
 * Output: "unaligned <case> <cycles>" and "unbuffered <case> <cycles>" per case. */
#include <stdint.h>

#include "cc26x2_vims.h"

static const uint8_t bytes[64] __attribute__((aligned(16))) = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

#define LOAD_AFTER_OTHER_LINE(out, address) \
    MEASURE(out, address, "ldr r2, [r1, #32]\n\t", "ldr r3, [r1]\n\t", "")
#define ONE_LOAD(out) MEASURE(out, bytes, "", "ldr.w r2, [r1]\n\t", "")
#define TWO_LOADS(out) MEASURE(out, bytes, "", "ldr.w r2, [r1]\n\tldr.w r3, [r1, #4]\n\t", "")

enum { C_ALIGNED, C_PLUS_1, C_PLUS_9, C_PLUS_13, C_COUNT };
static const char *const unaligned_names[C_COUNT] = {"aligned", "plus_1", "plus_9", "plus_13"};
static const unsigned offsets[C_COUNT] = {0, 1, 9, 13};

enum { U_ONE, U_TWO, U_COUNT };
static const char *const unbuffered_names[U_COUNT] = {"one_load", "two_loads"};

int main(void)
{
    uint32_t cycles[C_COUNT], unbuffered[U_COUNT];
    measure_with_vims_cache_off();
    for (unsigned i = 0; i < C_COUNT; i++) {
        const uint8_t *address = bytes + offsets[i];
        LOAD_AFTER_OTHER_LINE(cycles[i], address);
        LOAD_AFTER_OTHER_LINE(cycles[i], address);
    }
    VIMS_CTL |= VIMS_CTL_IDCODE_LB_DIS;
    ONE_LOAD(unbuffered[U_ONE]);
    ONE_LOAD(unbuffered[U_ONE]);
    TWO_LOADS(unbuffered[U_TWO]);
    TWO_LOADS(unbuffered[U_TWO]);
    print_measurements("unaligned", unaligned_names, cycles, C_COUNT);
    print_measurements("unbuffered", unbuffered_names, unbuffered, U_COUNT);
    return 0;
}
