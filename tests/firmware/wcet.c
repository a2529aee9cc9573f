/* Functions with known worst cases for the loop-context WCET analysis
 * (analysis/wcet, tests/analysis/wcet_test.cpp). Each is called with
 * several inputs; the inputs of the loops include their worst path.
 *
 *   wcet_single_path  one path whatever the input: the bound is exact
 *   wcet_scan         a loop whose trip count and branch depend on the
 *                     data; the longest input takes the heavy arm every
 *                     time, so the bound is close to the longest run
 *   wcet_nested       nested loops whose inner body does extra work only
 *                     in the inner loop's first iteration: the loop
 *                     context gives a lower bound than one maximum per
 *                     block
 *   wcet_after_call   a loop entered straight from a call's return
 *   wcet_long_block   one block longer than a translated block can be
 *
 * Output: one line "wcet: <sum>". */
#include <stdint.h>

#include "print.h"
#include "semihost.h"

#define MEASURED __attribute__((noinline, noclone))

volatile uint32_t wcet_sink;

MEASURED uint32_t wcet_single_path(uint32_t x)
{
    uint32_t a = x * 2654435761u;
    uint32_t b = (a >> 13) ^ (x << 7);
    uint32_t c = a + b * 40503u;
    return c ^ (c >> 16);
}

MEASURED uint32_t wcet_scan(const uint32_t *v, uint32_t n)
{
    uint32_t acc = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (v[i] & 1u) {
            acc = acc * 33u + v[i];
            acc ^= acc >> 11;
            acc += (acc << 3) ^ (v[i] >> 2);
        } else {
            acc ^= v[i] >> 1;
        }
    }
    return acc;
}

/* Which inner iterations start slowly: only the first. Data, so that the
 * compiler cannot peel the first iteration out of the loop. */
static const volatile uint8_t slow_start[8] = {1, 0, 0, 0, 0, 0, 0, 0};

MEASURED uint32_t wcet_nested(uint32_t m, uint32_t n, uint32_t seed)
{
    uint32_t acc = seed;
    for (uint32_t i = 0; i < m; ++i) {
        for (uint32_t j = 0; j < n; ++j) {
            if (slow_start[j & 7u]) {
                /* a slow start of each inner loop, like a cold cache */
                acc = acc / (i + 3u) + acc / (j + 7u);
                acc = acc * 2246822519u + (acc >> 15);
                acc = acc / 5u + (acc ^ 0x9e3779b9u) / 9u;
            } else {
                acc += j ^ i;
            }
        }
        wcet_sink = acc;
    }
    return acc;
}

MEASURED uint32_t wcet_seed(uint32_t x)
{
    return (x * 2654435761u) ^ (x >> 3);
}

/* A loop whose header directly follows a call: the call returns into the loop. */
MEASURED uint32_t wcet_after_call(uint32_t n, uint32_t x)
{
    uint32_t s = wcet_seed(x);
    do {
        s = (s << 5) + (s >> 3) + n;
    } while (--n);
    return s;
}

/* One basic block of 600 instructions: longer than Unicorn lets a translated block be, so the
 * emulator reports it in two parts. */
MEASURED uint32_t wcet_long_block(uint32_t x)
{
    __asm__ volatile(".rept 600\n\tadds %0, %0, #3\n\t.endr" : "+l"(x) : : "cc");
    return x;
}

static const uint32_t scan_short[] = {2, 4, 6};
static const uint32_t scan_mixed[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
static const uint32_t scan_worst[] = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
static const uint32_t scan_even[] = {2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32};

int main(void)
{
    uint32_t sum = 0;
    for (uint32_t k = 0; k < 5; ++k)
        sum += wcet_single_path(k * 77u + 1u);
    sum += wcet_scan(scan_short, 3);
    sum += wcet_scan(scan_mixed, 10);
    sum += wcet_scan(scan_worst, 16);
    sum += wcet_scan(scan_even, 16);
    sum += wcet_scan(scan_mixed, 0);
    sum += wcet_nested(4, 6, 12345u);
    sum += wcet_nested(3, 6, 999u);
    sum += wcet_nested(1, 2, 7u);
    sum += wcet_after_call(5, 3);
    sum += wcet_after_call(9, 4);
    sum += wcet_long_block(sum);
    sum += wcet_long_block(1);
    char line[32];
    char *p = fmt_str(line, "wcet: ");
    p = fmt_dec(p, sum);
    fmt_str(p, "\n");
    print_to_semihosting(line);
    return 0;
}
