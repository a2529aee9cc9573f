/* Real compiler output for the structure analyses: kernels that call
 * libgcc's soft-float and 64-bit division routines and newlib-nano's
 * string, stdio and math functions, as benchmark code built with GCC and
 * newlib does (tests/analysis/libcalls_test.cpp, docs/wcet.md). Every
 * function of the image, ours and the libraries', goes through `cfg`,
 * `run --calltrace` and `wcet`.
 *
 *   lc_fir_float     a soft-float FIR filter (__aeabi_fmul, __aeabi_fadd)
 *   lc_iir_double    a double-precision IIR section (__aeabi_dmul/dadd/ddiv)
 *   lc_convert       int <-> float conversions and comparisons
 *   lc_div64         64-bit division and remainder (__aeabi_uldivmod, __aeabi_ldivmod)
 *   lc_crc_dispatch  picks a CRC routine and enters it by a tail call (b.w)
 *   lc_strings       strlen, memcpy, memset, strcmp, strchr
 *   lc_format        snprintf of integers and strings
 *   lc_math          sqrtf, sinf, expf from libm
 *   lc_bubble_sort   a triangular loop nest (the inner bound depends on the outer counter)
 *   lc_scale         a small function GCC inlines into its only caller (its own copy never runs)
 *
 * Output: a line per kernel, then "libcalls: <checksum>". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KERNEL __attribute__((noinline, noclone))

/* Inputs the compiler cannot see through. */
volatile int32_t lc_input[16] = {3, -7, 12, 0, 25, -1, 8, 99, -40, 5, 17, 2, -3, 64, 1000, -250};

#define TAPS 8
static const float kTaps[TAPS] = {0.05f, 0.1f, 0.15f, 0.2f, 0.2f, 0.15f, 0.1f, 0.05f};

KERNEL float lc_fir_float(const float *x, unsigned n)
{
    float acc = 0.0f;
    for (unsigned i = 0; i + TAPS <= n; ++i) {
        float y = 0.0f;
        for (unsigned k = 0; k < TAPS; ++k) y += kTaps[k] * x[i + k];
        acc += y;
    }
    return acc;
}

KERNEL double lc_iir_double(const double *x, unsigned n)
{
    double y1 = 0.0, y2 = 0.0, out = 0.0;
    for (unsigned i = 0; i < n; ++i) {
        double y = 0.3 * x[i] + 1.2 * y1 - 0.4 * y2;
        y2 = y1;
        y1 = y;
        out += y / (1.0 + (double)i);
    }
    return out;
}

KERNEL int32_t lc_convert(const int32_t *v, unsigned n)
{
    int32_t hits = 0;
    for (unsigned i = 0; i < n; ++i) {
        float f = (float)v[i] * 0.75f;
        if (f < 10.0f) hits += (int32_t)f;
        else if (f > 100.0f) hits -= (int32_t)(f / 3.0f);
        else hits += 1;
    }
    return hits;
}

KERNEL uint32_t lc_div64(const int32_t *v, unsigned n)
{
    uint64_t acc = 0x123456789abcdefull;
    int64_t sacc = 0;
    for (unsigned i = 0; i < n; ++i) {
        uint64_t d = (uint64_t)(uint32_t)(v[i] * v[i] + 3) << (i & 7u);
        acc = acc / d + acc % d + 0x9e3779b97f4a7c15ull;
        sacc += ((int64_t)v[i] << 20) / (int64_t)(v[i] - 1000);
    }
    return (uint32_t)(acc ^ (acc >> 32)) ^ (uint32_t)sacc;
}

KERNEL uint32_t lc_crc_bitwise(const uint8_t *p, unsigned n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (unsigned i = 0; i < n; ++i) {
        crc ^= p[i];
        for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

KERNEL uint32_t lc_crc_nibble(const uint8_t *p, unsigned n)
{
    static const uint32_t table[16] = {
        0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
        0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu, 0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
    };
    uint32_t crc = 0xFFFFFFFFu;
    for (unsigned i = 0; i < n; ++i) {
        crc = table[(crc ^ p[i]) & 15u] ^ (crc >> 4);
        crc = table[(crc ^ (p[i] >> 4)) & 15u] ^ (crc >> 4);
    }
    return ~crc;
}

/* GCC -O2 turns both calls into tail calls (b.w): the CRC routines are
 * entered without a BL and return straight to our caller. */
KERNEL uint32_t lc_crc_dispatch(const uint8_t *p, unsigned n, int fast)
{
    if (fast)
        return lc_crc_nibble(p, n);
    return lc_crc_bitwise(p, n);
}

KERNEL uint32_t lc_strings(const char *a, const char *b)
{
    char buf[64];
    size_t la = strlen(a), lb = strlen(b);
    memset(buf, 0, sizeof buf);
    memcpy(buf, a, la < 31 ? la : 31);
    memcpy(buf + 31, b, lb < 31 ? lb : 31);
    uint32_t r = (uint32_t)la * 7u + (uint32_t)lb;
    r += (uint32_t)(strcmp(a, b) > 0);
    const char *c = strchr(buf, 'e');
    return r + (c ? (uint32_t)(c - buf) : 0u);
}

KERNEL int lc_format(char *out, size_t size, int32_t a, uint32_t b, const char *s)
{
    return snprintf(out, size, "a=%d b=%08lx s=%s|%5u", (int)a, (unsigned long)b, s, (unsigned)(b & 0xFFFFu));
}

KERNEL float lc_math(float x)
{
    return sqrtf(x * x + 1.0f) + sinf(x) * expf(-x * 0.125f);
}

KERNEL void lc_bubble_sort(int32_t *v, unsigned n)
{
    for (unsigned i = 0; i + 1 < n; ++i)
        for (unsigned j = 0; j + 1 < n - i; ++j)
            if (v[j] > v[j + 1]) {
                int32_t t = v[j];
                v[j] = v[j + 1];
                v[j + 1] = t;
            }
}

/* External, small, called once: GCC inlines it into lc_scaled_sum and
 * still emits its own copy, which no run calls (main's test of lc_input
 * never passes, so lc_keep is never called through). */
int32_t lc_scale(int32_t x)
{
    return x * 3 + (x >> 2);
}
int32_t (*volatile lc_keep)(int32_t) = lc_scale;

KERNEL int32_t lc_scaled_sum(const volatile int32_t *v, unsigned n)
{
    int32_t s = 0;
    for (unsigned i = 0; i < n; ++i) s += lc_scale(v[i]);
    return s;
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
    float fx[32];
    double dx[24];
    int32_t iv[16];
    for (unsigned i = 0; i < 32; ++i) fx[i] = (float)lc_input[i & 15u] * 0.25f;
    for (unsigned i = 0; i < 24; ++i) dx[i] = (double)lc_input[(i * 5u) & 15u] / 8.0;
    for (unsigned i = 0; i < 16; ++i) iv[i] = lc_input[i];

    uint32_t h = 2166136261u, v;
    for (unsigned n = 8; n <= 32; n += 8) {
        float f = lc_fir_float(fx, n);
        memcpy(&v, &f, sizeof v);
        h = mix(h, v);
    }
    report("fir_float", h);
    for (unsigned n = 4; n <= 24; n += 10) {
        double d = lc_iir_double(dx, n);
        uint32_t w[2];
        memcpy(w, &d, sizeof w);
        h = mix(mix(h, w[0]), w[1]);
    }
    report("iir_double", h);
    h = mix(h, (uint32_t)lc_convert(iv, 16));
    report("convert", h);
    h = mix(h, lc_div64(iv, 16));
    h = mix(h, lc_div64(iv + 4, 9));
    report("div64", h);
    static const char text[] = "the quick brown fox jumps over the lazy dog";
    for (int round = 0; round < 6; ++round)
        h = mix(h, lc_crc_dispatch((const uint8_t *)text + round, sizeof text - 1 - (unsigned)round, round & 1));
    report("crc", h);
    h = mix(h, lc_strings(text, "lazy dogs sleep"));
    h = mix(h, lc_strings("emutrace", text + 10));
    report("strings", h);
    char line[80];
    for (int round = 0; round < 3; ++round) {
        int len = lc_format(line, sizeof line, lc_input[round] * 1000, (uint32_t)lc_input[round + 4] * 0x10001u, text + round * 4);
        h = mix(h, (uint32_t)len);
        h = mix(h, (uint32_t)(unsigned char)line[len / 2]);
    }
    report("format", h);
    for (int round = 0; round < 5; ++round) {
        float m = lc_math((float)lc_input[round] * 0.5f);
        memcpy(&v, &m, sizeof v);
        h = mix(h, v >> 4);  /* the low bits may differ across libm builds */
    }
    report("math", h);
    for (unsigned n = 4; n <= 16; n += 6) {
        for (unsigned i = 0; i < 16; ++i) iv[i] = lc_input[(i * 7u) & 15u];
        lc_bubble_sort(iv, n);
        for (unsigned i = 0; i < n; ++i) h = mix(h, (uint32_t)iv[i]);
    }
    report("bubble_sort", h);
    h = mix(h, (uint32_t)lc_scaled_sum(lc_input, 16));
    if (lc_input[0] == 12345)
        h = mix(h, (uint32_t)lc_keep((int32_t)h));
    report("scaled_sum", h);
    printf("libcalls: %08lx\n", (unsigned long)h);
    return 0;
}
