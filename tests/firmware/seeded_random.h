/* The inputs a multi-input test firmware draws: a linear congruential sequence started from
 * the seed on the semihosting command line (cmdline_seed.h), so that "seed=N" picks the input
 * and one build gives every run of a campaign. */
#ifndef EMUTRACE_TEST_SEEDED_RANDOM_H
#define EMUTRACE_TEST_SEEDED_RANDOM_H

#include <stdint.h>

#include "cmdline_seed.h"

static uint32_t seeded_random_state;

/* Starts the sequence from the command line's seed (1 without one). */
static inline void seed_random_from_cmdline(void)
{
    seeded_random_state = seed_from_cmdline();
}

/* The next value, 23 bits. */
static inline uint32_t next_random(void)
{
    seeded_random_state = seeded_random_state * 22695477u + 1u;
    return seeded_random_state >> 9;
}

#endif
