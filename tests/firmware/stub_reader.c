/* Exercises a scripted "stub" peripheral whose register values are
 * declared by a test scenario; the printed line shows what the firmware
 * observed. */
#include <stdint.h>

#include "print.h"
#include "semihost.h"

#define STUB_BASE 0x40010000u
#define STUB_ID 0x00u
#define STUB_DATA 0x04u
#define STUB_STATUS 0x08u
#define STUB_CMD 0x0Cu
#define STUB_ECHO 0x10u

#define MAX_POLLS 1000000u

static inline volatile uint32_t *stub_reg(uint32_t off)
{
    return (volatile uint32_t *)(uintptr_t)(STUB_BASE + off);
}

int main(void)
{
    uint32_t id = *stub_reg(STUB_ID);
    uint32_t data[4];
    for (int i = 0; i < 4; i++)
        data[i] = *stub_reg(STUB_DATA);

    /* polls counts every STATUS read, including the one that saw bit0. */
    uint32_t polls = 0;
    for (;;) {
        if (polls == MAX_POLLS) {
            sh_write0("stub: status timeout\n");
            return 3;
        }
        polls++;
        if (*stub_reg(STUB_STATUS) & 1u)
            break;
    }

    *stub_reg(STUB_CMD) = 0xA5u;
    uint32_t echo = *stub_reg(STUB_ECHO);

    char line[128];
    char *p = fmt_str(line, "stub: id=");
    p = fmt_hex32(p, id);
    p = fmt_str(p, " data=");
    for (int i = 0; i < 4; i++) {
        if (i)
            p = fmt_str(p, ",");
        p = fmt_dec(p, data[i]);
    }
    p = fmt_str(p, " polls=");
    p = fmt_dec(p, polls);
    p = fmt_str(p, " echo=");
    p = fmt_hex32(p, echo);
    fmt_str(p, "\n");
    sh_write0(line);
    return 0;
}
