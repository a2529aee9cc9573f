/* The seed a test firmware makes its input from: "seed=N" on the semihosting
 * command line (emutrace --cmdline), 1 when there is none, so one build gives
 * single-input runs and multi-input ones. */
#ifndef EMUTRACE_TEST_CMDLINE_SEED_H
#define EMUTRACE_TEST_CMDLINE_SEED_H

#include <stdint.h>

#include "semihost.h"

static inline uint32_t seed_from_cmdline(void)
{
    char line[64];
    if (sh_get_cmdline(line, sizeof line) != 0)
        return 1;
    for (const char *c = line; *c; c++)
        if (c[0] == 's' && c[1] == 'e' && c[2] == 'e' && c[3] == 'd' && c[4] == '=') {
            uint32_t seed = 0;
            for (c += 5; *c >= '0' && *c <= '9'; c++)
                seed = seed * 10u + (uint32_t)(*c - '0');
            return seed;
        }
    return 1;
}

#endif
