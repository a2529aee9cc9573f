/* A CC26x2 set up as the CMEmu silicon tests set it before they measure from flash: the VIMS
 * cache off (VIMS_CTL mode 3, the flash and its line buffers timed directly), the DWT cycle
 * counter on. */
#ifndef EMUTRACE_TEST_CC26X2_VIMS_H
#define EMUTRACE_TEST_CC26X2_VIMS_H

#include <stdint.h>

#include "measure.h"

#define VIMS_CTL (*(volatile uint32_t *)0x40034004u)
#define VIMS_CTL_MODE_OFF 3u
#define VIMS_CTL_SYSBUS_LB_DIS (1u << 4)
#define VIMS_CTL_IDCODE_LB_DIS (1u << 5)

static inline void measure_with_vims_cache_off(void)
{
    COREDEBUG_DEMCR |= COREDEBUG_DEMCR_TRCENA;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    VIMS_CTL = (VIMS_CTL & ~3u) | VIMS_CTL_MODE_OFF;
}

#endif
