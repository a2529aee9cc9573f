/* Recursive kernels for the WCET bound (docs/wcet.md, "Recursion"), in the
 * shapes TACLeBench's recursive programs have, emutrace's own code:
 *   k_fib       doubly recursive Fibonacci (TACLeBench's `recursion`);
 *   k_qsort     recursive quicksort over a random array;
 *   k_hanoi     towers of Hanoi, two self-calls around a move;
 *   k_expr      a recursive-descent evaluator, expr -> term -> factor -> expr:
 *               mutual recursion entered at one function;
 *   k_parity    is_even <-> is_odd, entered at both: a recursion the bound
 *               refuses, with the reason.
 * Input from the seed on the semihosting command line ("seed=N", default 1).
 * Output: "recursion: <checksum>". */
#include <stdint.h>

#include "seeded_random.h"
#include "print.h"

#define KERNEL __attribute__((noinline, noipa))
#define N_QSORT 24

KERNEL int fib(int n)
{
    if (n < 2)
        return 1;
    return fib(n - 1) + fib(n - 2);
}

KERNEL int k_fib(int n)
{
    return fib(n);
}

static int qsort_data[N_QSORT];

KERNEL void quicksort(int *a, int lo, int hi)
{
    if (lo >= hi)
        return;
    int pivot = a[(lo + hi) / 2], i = lo, j = hi;
    while (i <= j) {
        while (a[i] < pivot)
            i++;
        while (a[j] > pivot)
            j--;
        if (i <= j) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

KERNEL void k_qsort(void)
{
    quicksort(qsort_data, 0, N_QSORT - 1);
}

static volatile int hanoi_moves;

KERNEL void hanoi(int n, int from, int to, int via)
{
    if (n == 0)
        return;
    hanoi(n - 1, from, via, to);
    hanoi_moves = hanoi_moves + from * 4 + to;
    hanoi(n - 1, via, to, from);
}

KERNEL int k_hanoi(int n)
{
    hanoi_moves = 0;
    hanoi(n, 1, 3, 2);
    return hanoi_moves;
}

/* Digits, + - * and parentheses; no spaces. */
static char expr_text[48];
static const char *expr_at;

KERNEL int parse_expr(void);

KERNEL int parse_factor(void)
{
    if (*expr_at == '(') {
        expr_at++;
        int v = parse_expr();
        if (*expr_at == ')')
            expr_at++;
        return v;
    }
    int v = 0;
    while (*expr_at >= '0' && *expr_at <= '9')
        v = v * 10 + (*expr_at++ - '0');
    return v;
}

KERNEL int parse_term(void)
{
    int v = parse_factor();
    while (*expr_at == '*') {
        expr_at++;
        v *= parse_factor();
    }
    return v;
}

KERNEL int parse_expr(void)
{
    int v = parse_term();
    while (*expr_at == '+' || *expr_at == '-') {
        char op = *expr_at++;
        int w = parse_term();
        v = op == '+' ? v + w : v - w;
    }
    return v;
}

KERNEL int k_expr(void)
{
    expr_at = expr_text;
    return parse_expr();
}

/* A random expression of nested parentheses, at most `depth` deep. */
static char *make_expr(char *p, int depth, char *end)
{
    int terms = 1 + (int)(next_random() % 3u);
    for (int t = 0; t < terms && p + 12 < end; t++) {
        if (t)
            *p++ = "+-*"[next_random() % 3u];
        if (depth > 0 && (t == 0 || next_random() % 2u)) {
            *p++ = '(';
            p = make_expr(p, depth - 1, end - 1);
            *p++ = ')';
        } else {
            *p++ = (char)('1' + next_random() % 9u);
        }
    }
    return p;
}

KERNEL int is_odd(unsigned n);

KERNEL int is_even(unsigned n)
{
    return n == 0 ? 1 : is_odd(n - 1);
}

KERNEL int is_odd(unsigned n)
{
    return n == 0 ? 0 : is_even(n - 1);
}

KERNEL int k_parity(unsigned n)
{
    return is_even(n) + 2 * is_odd(n + 1);
}

int main(void)
{
    seed_random_from_cmdline();
    uint32_t check = 0;

    check = check * 31u + (uint32_t)k_fib(7 + (int)(next_random() % 4u));
    for (int i = 0; i < N_QSORT; i++)
        qsort_data[i] = (int)(next_random() % 1000u) - 500;
    k_qsort();
    check = check * 31u + (uint32_t)qsort_data[N_QSORT / 3];
    check = check * 31u + (uint32_t)k_hanoi(3 + (int)(next_random() % 3u));
    *make_expr(expr_text, 3, expr_text + sizeof expr_text - 1) = 0;
    check = check * 31u + (uint32_t)k_expr();
    check = check * 31u + (uint32_t)k_parity(5 + next_random() % 8u);

    char text[32];
    char *p = fmt_str(text, "recursion: ");
    p = fmt_hex32(p, check);
    fmt_str(p, "\n");
    print_to_semihosting(text);
    return 0;
}
