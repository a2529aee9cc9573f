/* Small benchmark kernels timed with DWT_CYCCNT.
 *
 * Each kernel runs once on LCG-generated input (built before timing) and
 * the cycle count covers just the call. The result is a checksum of the
 * kernel's output (the CRC itself for crc32; FNV-1a over the output words
 * for the others), computed after the second CYCCNT read, so the work
 * cannot be optimised away and a wrong answer is visible.
 *
 * Output: "kernel <name> cycles=<N> result=0x%08x", one line per kernel. */
#include <stdint.h>

#include "cortex_m.h"
#include "print.h"
#include "semihost.h"

/* noipa on top of noinline: no interprocedural analysis either, so GCC
 * cannot decide a kernel is pure and move or merge the call. */
#define KERNEL __attribute__((noinline, noipa))

static uint32_t lcg_state;

static uint32_t lcg_next(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state;
}

static uint32_t fnv1a_words(const uint32_t *w, unsigned n)
{
    uint32_t h = 2166136261u;
    for (unsigned i = 0; i < n; i++) {
        h ^= w[i];
        h *= 16777619u;
    }
    return h;
}

/* ---- crc32: table-driven, reflected polynomial 0xEDB88320 ---- */
#define CRC_LEN 1024
static uint32_t crc_table[256];
static uint8_t crc_data[CRC_LEN];

static void crc32_build_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
        crc_table[i] = c;
    }
}

KERNEL static uint32_t kernel_crc32(const uint8_t *p, unsigned n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (unsigned i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

/* ---- matmul: 8x8 int32, C = A * B ---- */
#define MAT_N 8
static int32_t mat_a[MAT_N][MAT_N], mat_b[MAT_N][MAT_N], mat_c[MAT_N][MAT_N];

KERNEL static void kernel_matmul(int32_t c[MAT_N][MAT_N], const int32_t a[MAT_N][MAT_N],
                                 const int32_t b[MAT_N][MAT_N])
{
    for (unsigned i = 0; i < MAT_N; i++) {
        for (unsigned j = 0; j < MAT_N; j++) {
            int32_t acc = 0;
            for (unsigned k = 0; k < MAT_N; k++)
                acc += a[i][k] * b[k][j];
            c[i][j] = acc;
        }
    }
}

/* ---- sort: insertion sort, 128 x uint32 ---- */
#define SORT_N 128
static uint32_t sort_data[SORT_N];

KERNEL static void kernel_sort(uint32_t *a, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        uint32_t v = a[i];
        unsigned j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* ---- fir: 16 taps, Q15 coefficients, 256 int16 samples ----
 * The input carries FIR_TAPS - 1 leading zeros (the filter's initial
 * state), so y[n] = sum_k h[k] * x[n - k] needs no bounds test. The
 * coefficients are positive and sum to 28672 < 32768, so the int32
 * accumulator cannot overflow for any int16 input. */
#define FIR_TAPS 16
#define FIR_LEN 256
static const int16_t fir_coef[FIR_TAPS] = {
    256, 512, 1024, 1536, 2048, 2560, 3072, 3328,
    3328, 3072, 2560, 2048, 1536, 1024, 512, 256,
};
static int16_t fir_in[FIR_TAPS - 1 + FIR_LEN];
static int32_t fir_out[FIR_LEN];

KERNEL static void kernel_fir(int32_t *y, const int16_t *x, const int16_t *h, unsigned n)
{
    /* x points at the first real sample; x[-1 .. -(FIR_TAPS-1)] exist. */
    for (unsigned i = 0; i < n; i++) {
        int32_t acc = 0;
        for (unsigned k = 0; k < FIR_TAPS; k++)
            acc += (int32_t)h[k] * x[(int)i - (int)k];
        y[i] = acc >> 15;
    }
}

static void report(const char *name, uint32_t cycles, uint32_t result)
{
    char line[64];
    char *p = fmt_str(line, "kernel ");
    p = fmt_str(p, name);
    p = fmt_str(p, " cycles=");
    p = fmt_dec(p, cycles);
    p = fmt_str(p, " result=");
    p = fmt_hex32(p, result);
    fmt_str(p, "\n");
    print_to_semihosting(line);
}

/* Compiler barrier around the timed calls: no memory access moves
 * into or out of the measured region. */
#define BARRIER() __asm__ volatile("" ::: "memory")

int main(void)
{
    uint32_t t0, t1, result;

    dwt_cyccnt_start();

    /* crc32 */
    crc32_build_table();
    lcg_state = 0x12345678u;
    for (unsigned i = 0; i < CRC_LEN; i++)
        crc_data[i] = (uint8_t)(lcg_next() >> 24);
    BARRIER();
    t0 = DWT_CYCCNT;
    result = kernel_crc32(crc_data, CRC_LEN);
    t1 = DWT_CYCCNT;
    BARRIER();
    report("crc32", t1 - t0, result);

    /* matmul: entries in [-2048, 2047], so |sum of 8 products| < 2^25 */
    lcg_state = 0x2468ACE0u;
    for (unsigned i = 0; i < MAT_N; i++) {
        for (unsigned j = 0; j < MAT_N; j++) {
            mat_a[i][j] = (int32_t)(lcg_next() >> 20) - 2048;
            mat_b[i][j] = (int32_t)(lcg_next() >> 20) - 2048;
        }
    }
    BARRIER();
    t0 = DWT_CYCCNT;
    kernel_matmul(mat_c, mat_a, mat_b);
    t1 = DWT_CYCCNT;
    BARRIER();
    report("matmul", t1 - t0, fnv1a_words((const uint32_t *)mat_c, MAT_N * MAT_N));

    /* sort */
    lcg_state = 0xCAFEF00Du;
    for (unsigned i = 0; i < SORT_N; i++)
        sort_data[i] = lcg_next();
    BARRIER();
    t0 = DWT_CYCCNT;
    kernel_sort(sort_data, SORT_N);
    t1 = DWT_CYCCNT;
    BARRIER();
    for (unsigned i = 1; i < SORT_N; i++) {
        if (sort_data[i - 1] > sort_data[i]) {
            sh_write0("kernel sort: output not sorted\n");
            return 1;
        }
    }
    report("sort", t1 - t0, fnv1a_words(sort_data, SORT_N));

    /* fir: samples are the LCG's top 16 bits as int16 */
    lcg_state = 0x0BADBEEFu;
    for (unsigned i = 0; i < FIR_LEN; i++)
        fir_in[FIR_TAPS - 1 + i] = (int16_t)(lcg_next() >> 16);
    BARRIER();
    t0 = DWT_CYCCNT;
    kernel_fir(fir_out, &fir_in[FIR_TAPS - 1], fir_coef, FIR_LEN);
    t1 = DWT_CYCCNT;
    BARRIER();
    report("fir", t1 - t0, fnv1a_words((const uint32_t *)fir_out, FIR_LEN));

    return 0;
}
