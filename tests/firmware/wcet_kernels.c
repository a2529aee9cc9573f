/* Benchmark kernels in the style of TACLeBench's, for the WCET analysis's
 * tightness (docs/wcet.md, "How tight"): integer sorts and matrices, and
 * soft-float filters and solvers whose library routines take operand-
 * dependent time. Written for emutrace, not copied from TACLeBench.
 *
 * Each kernel runs on input made from the seed on the semihosting command
 * line ("seed=N", default 1), so one build gives single-input runs (one
 * seed) and multi-input ones (several). Compiled -O2, like TACLeBench's
 * numbers in the issue.
 *
 * Output: "kernels: <checksum>". */
#include <stdint.h>

#include "cmdline_seed.h"
#include "print.h"

#define KERNEL __attribute__((noinline, noipa))
#define N_SORT 48
#define N_MAT 10
#define N_FIR 64
#define N_TAPS 12
#define N_LU 6
#define N_STATS 40

static uint32_t lcg;
static uint32_t next_random(void)
{
    lcg = lcg * 1103515245u + 12345u;
    return lcg >> 8;
}

/* ---- integer kernels ---- */

static int sort_data[N_SORT];

KERNEL void k_bsort(int *a, int n)
{
    for (int i = 0; i < n - 1; i++) {
        int swapped = 0;
        for (int j = 0; j < n - 1 - i; j++) {
            if (a[j] > a[j + 1]) {
                int t = a[j];
                a[j] = a[j + 1];
                a[j + 1] = t;
                swapped = 1;
            }
        }
        if (!swapped)
            break;
    }
}

KERNEL void k_insertsort(int *a, int n)
{
    for (int i = 1; i < n; i++) {
        int v = a[i], j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static int mat_a[N_MAT][N_MAT], mat_b[N_MAT][N_MAT], mat_c[N_MAT][N_MAT];

KERNEL void k_matmul(void)
{
    for (int i = 0; i < N_MAT; i++)
        for (int j = 0; j < N_MAT; j++) {
            int s = 0;
            for (int k = 0; k < N_MAT; k++)
                s += mat_a[i][k] * mat_b[k][j];
            mat_c[i][j] = s;
        }
}

static int count_pos, count_neg, sum_pos, sum_neg;

KERNEL void k_countneg(void)
{
    count_pos = count_neg = sum_pos = sum_neg = 0;
    for (int i = 0; i < N_MAT; i++)
        for (int j = 0; j < N_MAT; j++) {
            if (mat_c[i][j] >= 0) {
                count_pos++;
                sum_pos += mat_c[i][j];
            } else {
                count_neg++;
                sum_neg += mat_c[i][j];
            }
        }
}

/* Three loops in a triangle, as in an LU elimination: the innermost runs
 * (n-k-1)^2 times in the k-th outer iteration, far below its most per entry
 * times both outer bounds. */
KERNEL int k_tri3(int n)
{
    int s = 0;
    for (int k = 0; k < n; k++)
        for (int i = k + 1; i < n; i++)
            for (int j = k + 1; j < n; j++)
                s += mat_a[i][j] ^ (k + j);
    return s;
}

/* ---- soft-float kernels ---- */

static float fir_in[N_FIR + N_TAPS], fir_out[N_FIR];
static const float fir_taps[N_TAPS] = {0.02f, -0.05f, 0.08f, 0.12f, 0.18f, 0.25f, 0.25f, 0.18f, 0.12f, 0.08f, -0.05f, 0.02f};

KERNEL void k_fir(void)
{
    for (int i = 0; i < N_FIR; i++) {
        float acc = 0.0f;
        for (int t = 0; t < N_TAPS; t++)
            acc += fir_taps[t] * fir_in[i + t];
        fir_out[i] = acc;
    }
}

static float iir_state[4][2];
static const float iir_coef[4][5] = {
    {0.2929f, 0.5858f, 0.2929f, -0.0000f, 0.1716f},
    {0.2066f, 0.4131f, 0.2066f, -0.3695f, 0.1958f},
    {0.1550f, 0.3100f, 0.1550f, -0.6202f, 0.2404f},
    {0.0675f, 0.1349f, 0.0675f, -1.1430f, 0.4128f},
};

KERNEL float k_iir(const float *in, int n)
{
    float y = 0.0f;
    for (int i = 0; i < n; i++) {
        float x = in[i];
        for (int s = 0; s < 4; s++) {
            const float *c = iir_coef[s];
            float w = x - c[3] * iir_state[s][0] - c[4] * iir_state[s][1];
            y = c[0] * w + c[1] * iir_state[s][0] + c[2] * iir_state[s][1];
            iir_state[s][1] = iir_state[s][0];
            iir_state[s][0] = w;
            x = y;
        }
    }
    return y;
}

static double lu_a[N_LU][N_LU], lu_b[N_LU], lu_x[N_LU];

static double dabs(double v)
{
    return v < 0 ? -v : v;
}

/* LU decomposition with partial pivoting, then forward and back
 * substitution; returns 0 for a singular matrix. */
KERNEL int k_ludcmp(int n)
{
    int perm[N_LU];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (dabs(lu_a[i][k]) > dabs(lu_a[p][k]))
                p = i;
        if (dabs(lu_a[p][k]) < 1e-12)
            return 0;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double t = lu_a[k][j];
                lu_a[k][j] = lu_a[p][j];
                lu_a[p][j] = t;
            }
            int t = perm[k];
            perm[k] = perm[p];
            perm[p] = t;
        }
        for (int i = k + 1; i < n; i++) {
            double f = lu_a[i][k] / lu_a[k][k];
            lu_a[i][k] = f;
            for (int j = k + 1; j < n; j++)
                lu_a[i][j] -= f * lu_a[k][j];
        }
    }
    for (int i = 0; i < n; i++) {
        double s = lu_b[perm[i]];
        for (int j = 0; j < i; j++)
            s -= lu_a[i][j] * lu_x[j];
        lu_x[i] = s;
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = lu_x[i];
        for (int j = i + 1; j < n; j++)
            s -= lu_a[i][j] * lu_x[j];
        lu_x[i] = s / lu_a[i][i];
    }
    return 1;
}

static double st_x[N_STATS], st_y[N_STATS];
static double st_mean_x, st_var_x, st_corr;

static double newton_sqrt(double v)
{
    if (v <= 0)
        return 0;
    double r = v > 1 ? v / 2 : 1;
    for (int i = 0; i < 12; i++)
        r = 0.5 * (r + v / r);
    return r;
}

KERNEL void k_stats(int n)
{
    double sx = 0, sy = 0;
    for (int i = 0; i < n; i++) {
        sx += st_x[i];
        sy += st_y[i];
    }
    double mx = sx / n, my = sy / n, vx = 0, vy = 0, cxy = 0;
    for (int i = 0; i < n; i++) {
        double dx = st_x[i] - mx, dy = st_y[i] - my;
        vx += dx * dx;
        vy += dy * dy;
        cxy += dx * dy;
    }
    st_mean_x = mx;
    st_var_x = vx / n;
    st_corr = cxy / newton_sqrt(vx * vy);
}

/* ---- driver ---- */

static float small_float(void)
{
    return (float)((int)(next_random() % 2001u) - 1000) / 250.0f;
}

int main(void)
{
    lcg = seed_from_cmdline();
    uint32_t check = 0;

    for (int i = 0; i < N_SORT; i++)
        sort_data[i] = (int)(next_random() % 1000u) - 500;
    k_bsort(sort_data, N_SORT);
    check = check * 31u + (uint32_t)sort_data[N_SORT / 2];
    for (int i = 0; i < N_SORT; i++)
        sort_data[i] = (int)(next_random() % 1000u) - 500;
    k_insertsort(sort_data, N_SORT);
    check = check * 31u + (uint32_t)sort_data[3];

    for (int i = 0; i < N_MAT; i++)
        for (int j = 0; j < N_MAT; j++) {
            mat_a[i][j] = (int)(next_random() % 41u) - 20;
            mat_b[i][j] = (int)(next_random() % 41u) - 20;
        }
    k_matmul();
    k_countneg();
    check = check * 31u + (uint32_t)k_tri3(N_MAT);
    check = check * 31u + (uint32_t)(sum_pos + sum_neg + count_neg);

    for (int i = 0; i < N_FIR + N_TAPS; i++)
        fir_in[i] = small_float();
    k_fir();
    float iir_in[32];
    for (int i = 0; i < 32; i++)
        iir_in[i] = small_float();
    float y = k_iir(iir_in, 32);
    check = check * 31u + (uint32_t)(int)(1000.0f * (fir_out[7] + y));

    for (int i = 0; i < N_LU; i++) {
        for (int j = 0; j < N_LU; j++)
            lu_a[i][j] = (double)small_float();
        lu_a[i][i] += 8.0;
        lu_b[i] = (double)small_float();
    }
    check = check * 31u + (uint32_t)k_ludcmp(N_LU);
    check = check * 31u + (uint32_t)(int)(1000.0 * lu_x[0]);

    for (int i = 0; i < N_STATS; i++) {
        st_x[i] = (double)small_float();
        st_y[i] = st_x[i] * 0.5 + (double)small_float() * 0.25;
    }
    k_stats(N_STATS);
    check = check * 31u + (uint32_t)(int)(1000.0 * st_corr);

    char text[32];
    char *p = fmt_str(text, "kernels: ");
    p = fmt_hex32(p, check);
    fmt_str(p, "\n");
    print_to_semihosting(text);
    return 0;
}
