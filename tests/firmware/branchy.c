/* Branchy benchmark, shaped like CoreMark's work (not its code): a linked list searched and
 * reversed, a state machine scanning text for numbers, a small integer matrix multiplied and
 * thresholded, and a CRC-16 over the results. Short blocks, data-dependent branches and calls:
 * the opposite of compute.c's tight loops, for bench_mips's second workload.
 * Silent until the end, like compute.c: the bare-Unicorn baseline stops at the first BKPT. */
#include <stdint.h>

#include "print.h"
#include "semihost.h"

#ifndef ITERATIONS
#define ITERATIONS 1
#endif

/* --- linked list ------------------------------------------------------------------------- */
#define NODES 48
struct node {
    struct node *next;
    int16_t key, value;
};
static struct node pool[NODES];

static struct node *list_build(uint32_t seed)
{
    struct node *head = 0;
    for (int i = 0; i < NODES; i++) {
        seed = seed * 1103515245u + 12345u;
        pool[i].key = (int16_t)((seed >> 16) & 0x7F);
        pool[i].value = (int16_t)i;
        pool[i].next = head;
        head = &pool[i];
    }
    return head;
}

static struct node *list_find(struct node *n, int16_t key)
{
    while (n && n->key != key)
        n = n->next;
    return n;
}

static struct node *list_reverse(struct node *n)
{
    struct node *prev = 0;
    while (n) {
        struct node *next = n->next;
        n->next = prev;
        prev = n;
        n = next;
    }
    return prev;
}

static uint32_t list_work(uint32_t seed)
{
    struct node *head = list_build(seed);
    uint32_t found = 0;
    for (int16_t k = 0; k < 64; k += 3) {
        struct node *n = list_find(head, k);
        found += n ? (uint32_t)n->value : 0xFFu;
        if (k & 4)
            head = list_reverse(head);
    }
    return found;
}

/* --- state machine ----------------------------------------------------------------------- */
enum state { START, INT, FRAC, EXP, EXP_SIGN, EXP_INT, INVALID };

static enum state step(enum state s, char c)
{
    int digit = c >= '0' && c <= '9';
    switch (s) {
    case START: return digit ? INT : c == '.' ? FRAC : c == '-' || c == '+' ? START : INVALID;
    case INT: return digit ? INT : c == '.' ? FRAC : c == 'e' || c == 'E' ? EXP : INVALID;
    case FRAC: return digit ? FRAC : c == 'e' || c == 'E' ? EXP : INVALID;
    case EXP: return digit ? EXP_INT : c == '-' || c == '+' ? EXP_SIGN : INVALID;
    case EXP_SIGN: return digit ? EXP_INT : INVALID;
    case EXP_INT: return digit ? EXP_INT : INVALID;
    default: return INVALID;
    }
}

static const char *const words[] = {"5012", "1.234", "-874", "+122", "x3.3", "1e5", "-.9e-4", "7.E+2", "--1", "0.0e", "42", "3..1"};

static uint32_t scan_work(void)
{
    uint32_t counts[INVALID + 1] = {0};
    for (unsigned w = 0; w < sizeof words / sizeof words[0]; w++) {
        enum state s = START;
        for (const char *c = words[w]; *c && s != INVALID; c++)
            s = step(s, *c);
        counts[s]++;
    }
    return counts[INT] * 1 + counts[FRAC] * 7 + counts[EXP_INT] * 31 + counts[INVALID] * 127;
}

/* --- matrix ------------------------------------------------------------------------------ */
#define DIM 6
static int16_t ma[DIM][DIM], mb[DIM][DIM];
static int32_t mc[DIM][DIM];

static uint32_t matrix_work(uint32_t seed)
{
    for (int i = 0; i < DIM; i++)
        for (int j = 0; j < DIM; j++) {
            seed = seed * 1664525u + 1013904223u;
            ma[i][j] = (int16_t)((seed >> 20) & 0xFF) - 128;
            mb[i][j] = (int16_t)((seed >> 8) & 0xFF) - 128;
        }
    uint32_t above = 0;
    for (int i = 0; i < DIM; i++)
        for (int j = 0; j < DIM; j++) {
            int32_t sum = 0;
            for (int k = 0; k < DIM; k++)
                sum += ma[i][k] * mb[k][j];
            mc[i][j] = sum;
            if (sum > 1000)
                above += 2;
            else if (sum < -1000)
                above += 1;
        }
    return above;
}

/* --- CRC-16 ------------------------------------------------------------------------------ */
static uint16_t crc16(uint16_t crc, uint32_t v)
{
    for (int b = 0; b < 32; b++) {
        int bit = (int)((v >> b) & 1u) ^ (crc & 1);
        crc >>= 1;
        if (bit)
            crc ^= 0xA001;
    }
    return crc;
}

int main(void)
{
    uint16_t crc = 0;
    for (uint32_t it = 0; it < ITERATIONS; it++) {
        crc = crc16(crc, list_work(it + 1));
        crc = crc16(crc, scan_work());
        crc = crc16(crc, matrix_work(it));
    }
    /* The result line, a piece a write (the host joins them). */
    out_str(print_to_semihosting, "branchy: crc=");
    out_hex32(print_to_semihosting, crc);
    out_str(print_to_semihosting, " iterations=");
    out_dec(print_to_semihosting, ITERATIONS);
    out_str(print_to_semihosting, "\n");
    return 0;
}
