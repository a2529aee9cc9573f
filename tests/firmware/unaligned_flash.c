/* Unaligned loads from flash, for tests/emu/unaligned_access_test.cpp. The core's aligner splits
 * an unaligned word into the largest aligned pieces, in address order (a word at 1 mod 4: byte,
 * halfword, byte), and a flash with a 16-byte line buffer (a CC26x2's VIMS) reads a line once for
 * every piece in it. A word at 16n+9 (pieces at 9, 10, 12) stays in its line as one at 16n+1
 * does; one at 16n+13 (13, 14, 16) reads the next line too.
 *
 * The VIMS's cache is turned off (VIMS_CTL mode 3), as the CMEmu silicon tests run: data reads
 * from the flash then go through its line buffer.
 *
 * Each case reads another line first, so that the line buffer holds neither line, then times
 * one `ldr` (twice; the second is reported).
 *
 * Output: "unaligned <case> <cycles>" per case. */
#include <stdint.h>

#include "measure.h"

#define VIMS_CTL (*(volatile uint32_t *)0x40034004u)
#define VIMS_CTL_MODE_OFF 3u

static const uint8_t bytes[64] __attribute__((aligned(16))) = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

#define LOAD_AFTER_OTHER_LINE(out, address) \
    MEASURE(out, address, "ldr r2, [r1, #32]\n\t", "ldr r3, [r1]\n\t", "")

enum { C_ALIGNED, C_PLUS_1, C_PLUS_9, C_PLUS_13, C_COUNT };
static const char *const names[C_COUNT] = {"aligned", "plus_1", "plus_9", "plus_13"};
static const unsigned offsets[C_COUNT] = {0, 1, 9, 13};

int main(void)
{
    uint32_t cycles[C_COUNT];
    COREDEBUG_DEMCR |= COREDEBUG_DEMCR_TRCENA;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    VIMS_CTL = (VIMS_CTL & ~3u) | VIMS_CTL_MODE_OFF;
    for (unsigned i = 0; i < C_COUNT; i++) {
        const uint8_t *address = bytes + offsets[i];
        LOAD_AFTER_OTHER_LINE(cycles[i], address);
        LOAD_AFTER_OTHER_LINE(cycles[i], address);
    }
    print_measurements("unaligned", names, cycles, C_COUNT);
    return 0;
}
