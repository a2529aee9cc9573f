/* Bit-banding (ARMv7-M): sets, clears and reads single bits of an SRAM word and of a peripheral
 * register through their alias words, as vendor code does (STM32 and TI driver libraries poll
 * and set flags this way), with word and byte accesses to the alias.
 *
 * Transcript: "bit_band: sram 0x80000008 0x80000000 bit3=1 bit4=0 byte 0x00000104
 *              ctrl 0x000000f1 0x000000e1 bit7=1 bit4=0" and exit 0. */
#include <stdint.h>

#include "print.h"
#include "semihost.h"

#define SRAM_BASE 0x20000000u
#define SRAM_ALIAS 0x22000000u
#define PERIPH_BASE 0x40000000u
#define PERIPH_ALIAS 0x42000000u
#define CTRL (*(volatile uint32_t *)0x40010000u) /* a stub register, reset 0xF0 */

static volatile uint32_t *alias_word(uint32_t region, uint32_t alias, uint32_t address, unsigned bit)
{
    return (volatile uint32_t *)(alias + (address - region) * 32u + bit * 4u);
}

volatile uint32_t flags;
volatile uint32_t bytes;

int main(void)
{
    const uint32_t f = (uint32_t)&flags;
    *alias_word(SRAM_BASE, SRAM_ALIAS, f, 3) = 1;
    *alias_word(SRAM_BASE, SRAM_ALIAS, f + 3, 7) = 1; /* bit 31 of the word, by its byte */
    const uint32_t set = flags;
    const uint32_t bit3 = *alias_word(SRAM_BASE, SRAM_ALIAS, f, 3);
    const uint32_t bit4 = *alias_word(SRAM_BASE, SRAM_ALIAS, f, 4);
    *alias_word(SRAM_BASE, SRAM_ALIAS, f, 3) = 0xFFFFFFFEu; /* bit 0 of the value decides: clear */
    const uint32_t cleared = flags;

    /* A byte access to the alias: the target is the byte holding the bit. */
    const uint32_t b = (uint32_t)&bytes;
    *(volatile uint8_t *)alias_word(SRAM_BASE, SRAM_ALIAS, b + 1, 0) = 1;
    *(volatile uint8_t *)alias_word(SRAM_BASE, SRAM_ALIAS, b, 2) = 1;

    const uint32_t c = (uint32_t)&CTRL;
    *alias_word(PERIPH_BASE, PERIPH_ALIAS, c, 0) = 1;
    const uint32_t ctrl_set = CTRL;
    *alias_word(PERIPH_BASE, PERIPH_ALIAS, c, 4) = 0;
    const uint32_t ctrl_cleared = CTRL;
    const uint32_t ctrl7 = *alias_word(PERIPH_BASE, PERIPH_ALIAS, c, 7);
    const uint32_t ctrl4 = *alias_word(PERIPH_BASE, PERIPH_ALIAS, c, 4);

    char line[192];
    char *s = fmt_str(line, "bit_band: sram ");
    s = fmt_hex32(s, set);
    s = fmt_str(s, " ");
    s = fmt_hex32(s, cleared);
    s = fmt_str(s, " bit3=");
    s = fmt_dec(s, bit3);
    s = fmt_str(s, " bit4=");
    s = fmt_dec(s, bit4);
    s = fmt_str(s, " byte ");
    s = fmt_hex32(s, bytes);
    s = fmt_str(s, " ctrl ");
    s = fmt_hex32(s, ctrl_set);
    s = fmt_str(s, " ");
    s = fmt_hex32(s, ctrl_cleared);
    s = fmt_str(s, " bit7=");
    s = fmt_dec(s, ctrl7);
    s = fmt_str(s, " bit4=");
    s = fmt_dec(s, ctrl4);
    fmt_str(s, "\n");
    sh_write0(line);
    return 0;
}
