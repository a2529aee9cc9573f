/* Validation kernels for the WCET bound's tightness: written after call
 * contexts, edge times and called loops' totals were built and tuned on
 * wcet_kernels.c, and first run once they were done (docs/wcet.md, "How
 * tight"). TACLeBench-style again, emutrace's own code: a matrix inversion,
 * a cubic solver, an LMS filter, a 2-D convolution, an integer DCT, a
 * binary search, a bitwise CRC and trial division.
 *
 * Input from the seed on the semihosting command line ("seed=N", default 1).
 * Output: "holdout: <checksum>". */
#include <stdint.h>

#include "seeded_random.h"
#include "print.h"

#define KERNEL __attribute__((noinline, noipa))
#define N_INV 4
#define N_LMS 16
#define N_IMG 8

static double dabs(double v)
{
    return v < 0 ? -v : v;
}

/* Gauss-Jordan inversion with partial pivoting; returns 0 when singular. */
static double inv_a[N_INV][N_INV], inv_b[N_INV][N_INV];

KERNEL int k_minver(void)
{
    for (int i = 0; i < N_INV; i++)
        for (int j = 0; j < N_INV; j++)
            inv_b[i][j] = i == j ? 1.0 : 0.0;
    for (int c = 0; c < N_INV; c++) {
        int p = c;
        for (int r = c + 1; r < N_INV; r++)
            if (dabs(inv_a[r][c]) > dabs(inv_a[p][c]))
                p = r;
        if (dabs(inv_a[p][c]) < 1e-9)
            return 0;
        for (int j = 0; j < N_INV; j++) {
            double t = inv_a[c][j];
            inv_a[c][j] = inv_a[p][j];
            inv_a[p][j] = t;
            t = inv_b[c][j];
            inv_b[c][j] = inv_b[p][j];
            inv_b[p][j] = t;
        }
        double d = inv_a[c][c];
        for (int j = 0; j < N_INV; j++) {
            inv_a[c][j] /= d;
            inv_b[c][j] /= d;
        }
        for (int r = 0; r < N_INV; r++) {
            if (r == c)
                continue;
            double f = inv_a[r][c];
            for (int j = 0; j < N_INV; j++) {
                inv_a[r][j] -= f * inv_a[c][j];
                inv_b[r][j] -= f * inv_b[c][j];
            }
        }
    }
    return 1;
}

/* x^3 + a x^2 + b x + c = 0: one real root by Newton's method from a
 * bracket, then the quadratic that remains. */
static double cubic_roots[3];

static double root2(double v)
{
    if (v <= 0)
        return 0;
    double r = v < 1 ? 1 : v;
    for (int i = 0; i < 20; i++)
        r = 0.5 * (r + v / r);
    return r;
}

KERNEL int k_cubic(double a, double b, double c)
{
    double x = 0;
    for (int i = 0; i < 30; i++) {
        double f = ((x + a) * x + b) * x + c, df = (3 * x + 2 * a) * x + b;
        if (dabs(df) < 1e-12)
            df = 1e-12;
        double step = f / df;
        x -= step;
        if (dabs(step) < 1e-10)
            break;
    }
    cubic_roots[0] = x;
    double p = a + x, q = b + p * x;  /* x^2 + p x + q */
    double disc = p * p - 4 * q;
    if (disc < 0)
        return 1;
    double s = root2(disc);
    cubic_roots[1] = (-p + s) / 2;
    cubic_roots[2] = (-p - s) / 2;
    return 3;
}

static float lms_w[N_LMS], lms_x[N_LMS];

KERNEL float k_lms(const float *in, const float *desired, int n)
{
    float err = 0;
    for (int i = 0; i < n; i++) {
        for (int k = N_LMS - 1; k > 0; k--)
            lms_x[k] = lms_x[k - 1];
        lms_x[0] = in[i];
        float y = 0;
        for (int k = 0; k < N_LMS; k++)
            y += lms_w[k] * lms_x[k];
        err = desired[i] - y;
        float mu_err = 0.01f * err;
        for (int k = 0; k < N_LMS; k++)
            lms_w[k] += mu_err * lms_x[k];
    }
    return err;
}

static float img[N_IMG][N_IMG], img_out[N_IMG - 2][N_IMG - 2];
static const float kernel3[3][3] = {{0.0625f, 0.125f, 0.0625f}, {0.125f, 0.25f, 0.125f}, {0.0625f, 0.125f, 0.0625f}};

KERNEL void k_fir2dim(void)
{
    for (int r = 0; r < N_IMG - 2; r++)
        for (int c = 0; c < N_IMG - 2; c++) {
            float s = 0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    s += kernel3[i][j] * img[r + i][c + j];
            img_out[r][c] = s;
        }
}

/* An integer 8x8 DCT (scaled, separable, Loeffler-like butterflies). */
static int32_t dct_block[64];

static void dct_1d(int32_t *v, int stride)
{
    int32_t t0 = v[0] + v[7 * stride], t7 = v[0] - v[7 * stride];
    int32_t t1 = v[stride] + v[6 * stride], t6 = v[stride] - v[6 * stride];
    int32_t t2 = v[2 * stride] + v[5 * stride], t5 = v[2 * stride] - v[5 * stride];
    int32_t t3 = v[3 * stride] + v[4 * stride], t4 = v[3 * stride] - v[4 * stride];
    int32_t a0 = t0 + t3, a3 = t0 - t3, a1 = t1 + t2, a2 = t1 - t2;
    v[0] = (a0 + a1) << 2;
    v[4 * stride] = (a0 - a1) << 2;
    int32_t z1 = (a2 + a3) * 4433;
    v[2 * stride] = (z1 + a3 * 6270) >> 11;
    v[6 * stride] = (z1 - a2 * 15137) >> 11;
    int32_t z3 = (t4 + t6) * -3196, z4 = (t5 + t7) * 9633;
    v[7 * stride] = (t4 * 2446 + z3) >> 11;
    v[5 * stride] = (t5 * 16819 + z4) >> 11;
    v[3 * stride] = (t6 * 25172 + z3) >> 11;
    v[stride] = (t7 * 12299 + z4) >> 11;
}

KERNEL void k_jfdct(int32_t *block)
{
    for (int r = 0; r < 8; r++)
        dct_1d(block + 8 * r, 1);
    for (int c = 0; c < 8; c++)
        dct_1d(block + c, 8);
}

static int sorted[64];

KERNEL int k_binsearch(const int *keys, int nkeys)
{
    int found = 0;
    for (int k = 0; k < nkeys; k++) {
        int lo = 0, hi = 63;
        while (lo <= hi) {
            int mid = (lo + hi) >> 1;
            if (sorted[mid] == keys[k]) {
                found++;
                break;
            }
            if (sorted[mid] < keys[k])
                lo = mid + 1;
            else
                hi = mid - 1;
        }
    }
    return found;
}

static uint8_t crc_in[64];

KERNEL uint16_t k_crc16(const uint8_t *p, int n)
{
    uint16_t crc = 0xFFFF;
    for (int i = 0; i < n; i++) {
        crc ^= (uint16_t)(p[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    }
    return crc;
}

KERNEL int k_primes(uint32_t from, int count)
{
    int primes = 0;
    for (uint32_t n = from; n < from + (uint32_t)count; n++) {
        int prime = n > 1;
        for (uint32_t d = 2; d * d <= n; d++)
            if (n % d == 0) {
                prime = 0;
                break;
            }
        primes += prime;
    }
    return primes;
}

/* ---- driver ---- */

static float small_float(void)
{
    return (float)((int)(next_random() % 2001u) - 1000) / 300.0f;
}

int main(void)
{
    seed_random_from_cmdline();
    uint32_t check = 0;

    for (int i = 0; i < N_INV; i++) {
        for (int j = 0; j < N_INV; j++)
            inv_a[i][j] = (double)small_float();
        inv_a[i][i] += 5.0;
    }
    check = check * 31u + (uint32_t)k_minver();
    check = check * 31u + (uint32_t)(int)(1000.0 * inv_b[1][2]);

    check = check * 31u + (uint32_t)k_cubic((double)small_float(), (double)small_float() - 4.0, (double)small_float());
    check = check * 31u + (uint32_t)(int)(1000.0 * cubic_roots[0]);

    float in[40], desired[40];
    for (int i = 0; i < 40; i++) {
        in[i] = small_float();
        desired[i] = 0.5f * in[i] + (i ? 0.25f * in[i - 1] : 0.0f);
    }
    check = check * 31u + (uint32_t)(int)(1000.0f * k_lms(in, desired, 40));

    for (int r = 0; r < N_IMG; r++)
        for (int c = 0; c < N_IMG; c++)
            img[r][c] = small_float();
    k_fir2dim();
    check = check * 31u + (uint32_t)(int)(1000.0f * img_out[2][3]);

    for (int i = 0; i < 64; i++)
        dct_block[i] = (int32_t)(next_random() % 256u) - 128;
    k_jfdct(dct_block);
    check = check * 31u + (uint32_t)dct_block[9];

    for (int i = 0; i < 64; i++)
        sorted[i] = i * 3 + (int)(next_random() % 3u);
    int keys[20];
    for (int i = 0; i < 20; i++)
        keys[i] = (int)(next_random() % 200u);
    check = check * 31u + (uint32_t)k_binsearch(keys, 20);

    for (int i = 0; i < 64; i++)
        crc_in[i] = (uint8_t)next_random();
    check = check * 31u + k_crc16(crc_in, 64);
    check = check * 31u + (uint32_t)k_primes(1000u + next_random() % 1000u, 40);

    char text[32];
    char *p = fmt_str(text, "holdout: ");
    p = fmt_hex32(p, check);
    fmt_str(p, "\n");
    print_to_semihosting(text);
    return 0;
}
