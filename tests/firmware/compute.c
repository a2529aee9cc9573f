/* Compute benchmark: LCG fill, heapsort, CRC-32 over the sorted data.
 * Deliberately silent until the end: the benchmark runs without hooks
 * and stops at the first BKPT, so any earlier semihosting call or UART
 * access would cut the measured work short. */
#include <stdint.h>

#include "cmsdk_uart.h"
#include "print.h"
#include "semihost.h"

#ifndef ITERATIONS
#define ITERATIONS 1
#endif

#define N 256

static uint32_t values[N];

static void sift_down(uint32_t *a, unsigned root, unsigned end)
{
    for (;;) {
        unsigned child = 2 * root + 1;
        if (child >= end)
            return;
        if (child + 1 < end && a[child] < a[child + 1])
            child++;
        if (a[root] >= a[child])
            return;
        uint32_t t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

static void heapsort_u32(uint32_t *a, unsigned n)
{
    for (unsigned i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (unsigned end = n; end-- > 1;) {
        uint32_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
    }
}

static uint32_t crc32_byte(uint32_t crc, uint8_t b)
{
    crc ^= b;
    for (int k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    return crc;
}

int main(void)
{
    uint32_t state = 0x12345678u;
    uint32_t crc = 0xFFFFFFFFu;

    for (unsigned it = 0; it < ITERATIONS; it++) {
        for (unsigned i = 0; i < N; i++) {
            state = state * 1664525u + 1013904223u;
            values[i] = state;
        }
        heapsort_u32(values, N);
        for (unsigned i = 1; i < N; i++) {
            if (values[i - 1] > values[i]) {
                sh_write0("compute: sort failed\n");
                return 1;
            }
        }
        /* Explicit byte order so the result does not depend on the
         * target's endianness. */
        for (unsigned i = 0; i < N; i++) {
            uint32_t v = values[i];
            for (int s = 0; s < 32; s += 8)
                crc = crc32_byte(crc, (uint8_t)(v >> s));
        }
    }
    crc ^= 0xFFFFFFFFu;

    char line[64];
    char *p = fmt_str(line, "compute: crc=");
    p = fmt_hex32(p, crc);
    p = fmt_str(p, " iterations=");
    p = fmt_dec(p, ITERATIONS);
    fmt_str(p, "\n");

    print_to_semihosting(line);
    uart_init(CMSDK_UART0_BASE, 16);
    print_to_uart(line);
    return 0;
}
