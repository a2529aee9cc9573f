/* A second real-code corpus, kept aside while the structure analyses
 * were built on tests/firmware/libcalls.c: other newlib-nano and libgcc
 * routines, built for a Cortex-M0 (ARMv6-M: libgcc's Thumb-1 division
 * and soft-float, no IT blocks), so that cfg, run --calltrace and wcet
 * are measured on code they were not developed on (docs/wcet.md).
 *
 *   ho_sort_records  qsort with a comparator: newlib calls back into us
 *   ho_lookup        bsearch over the sorted records
 *   ho_parse         strtol and atoi over text
 *   ho_text          strncpy, strcat, memcmp, strrchr, sprintf
 *   ho_divide        32-bit division and remainder (__aeabi_uidivmod, __aeabi_idiv)
 *   ho_double_math   sqrt, pow and log in double precision
 *   ho_fixed_point   64-bit multiply and shifts (__aeabi_lmul, __aeabi_llsr)
 *
 * Output: a line per kernel, then "holdout: <checksum>". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL __attribute__((noinline, noclone))

volatile int32_t ho_input[12] = {42, -17, 1000, 7, 0, 313, -2048, 9, 65535, 12, -1, 77};

struct record {
    int32_t key;
    uint32_t payload;
};

static int by_key(const void *a, const void *b)
{
    int32_t x = ((const struct record *)a)->key, y = ((const struct record *)b)->key;
    return (x > y) - (x < y);
}

KERNEL void ho_sort_records(struct record *r, unsigned n)
{
    qsort(r, n, sizeof *r, by_key);
}

KERNEL uint32_t ho_lookup(const struct record *r, unsigned n, int32_t key)
{
    struct record probe = {key, 0};
    const struct record *hit = bsearch(&probe, r, n, sizeof *r, by_key);
    return hit ? hit->payload : 0xFFFFFFFFu;
}

KERNEL int32_t ho_parse(const char *text)
{
    char *end = 0;
    long a = strtol(text, &end, 0);
    long b = end ? strtol(end, &end, 10) : 0;
    return (int32_t)(a * 3 + b) + atoi("  -125xyz");
}

KERNEL uint32_t ho_text(char *out, unsigned size, const char *a, const char *b)
{
    char buf[48];
    strncpy(buf, a, 20);
    buf[20] = 0;
    strcat(buf, "/");
    strcat(buf, b);
    const char *slash = strrchr(buf, '/');
    int n = sprintf(out, "%s:%x:%u", buf, (unsigned)strlen(buf), size);
    return (uint32_t)n * 31u + (uint32_t)(slash - buf) + (uint32_t)(memcmp(a, b, 4) > 0);
}

KERNEL uint32_t ho_divide(const volatile int32_t *v, unsigned n)
{
    uint32_t acc = 0;
    for (unsigned i = 0; i < n; ++i) {
        uint32_t d = (uint32_t)v[i] | 3u;
        acc += 0xFFFFFFF0u / d + 0xDEADBEEFu % d;
        acc += (uint32_t)((int32_t)(acc ^ 0x80000000u) / (v[i] | 1));
    }
    return acc;
}

KERNEL double ho_double_math(double x)
{
    return sqrt(x * x + 2.0) + pow(x, 1.5) - log(x + 1.0);
}

KERNEL uint64_t ho_fixed_point(const volatile int32_t *v, unsigned n)
{
    uint64_t acc = 1;
    for (unsigned i = 0; i < n; ++i) {
        uint64_t q = (uint64_t)(uint32_t)v[i] * 0x10001ull;
        acc = (acc * (q | 1)) >> (i & 7u);
        acc ^= acc << 13;
    }
    return acc;
}

static uint32_t mix(uint32_t h, uint32_t v)
{
    return (h ^ v) * 16777619u;
}

static void report(const char *what, uint32_t value)
{
    printf("%-16s %08lx\n", what, (unsigned long)value);
}

int main(void)
{
    uint32_t h = 2166136261u;
    struct record r[12];
    for (unsigned i = 0; i < 12; ++i) {
        r[i].key = ho_input[i];
        r[i].payload = i * 0x01010101u;
    }
    ho_sort_records(r, 12);
    for (unsigned i = 0; i < 12; ++i) h = mix(h, (uint32_t)r[i].key);
    report("sort", h);
    for (unsigned i = 0; i < 12; i += 3) h = mix(h, ho_lookup(r, 12, ho_input[i]));
    h = mix(h, ho_lookup(r, 12, 5));
    report("lookup", h);
    h = mix(h, (uint32_t)ho_parse("0x7f 300"));
    h = mix(h, (uint32_t)ho_parse("-42 17 tail"));
    report("parse", h);
    char out[96];
    h = mix(h, ho_text(out, sizeof out, "emulated", "firmware"));
    h = mix(h, ho_text(out, sizeof out, "a much longer first string", "b"));
    report("text", h);
    h = mix(h, ho_divide(ho_input, 12));
    report("divide", h);
    for (int k = 1; k <= 4; ++k) {
        double d = ho_double_math((double)ho_input[k & 3] * 0.5 + 3.0);
        uint32_t w[2];
        memcpy(w, &d, sizeof w);
        h = mix(h, w[1]);
    }
    report("double_math", h);
    uint64_t f = ho_fixed_point(ho_input, 12);
    h = mix(mix(h, (uint32_t)f), (uint32_t)(f >> 32));
    report("fixed_point", h);
    printf("holdout: %08lx\n", (unsigned long)h);
    return 0;
}
