#include "print.h"

#include "cmsdk_uart.h"
#include "semihost.h"

void print_to_semihosting(const char *s)
{
    sh_write0(s);
}

void print_to_uart(const char *s)
{
    uart_puts(CMSDK_UART0_BASE, s);
}

char *fmt_str(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    *p = '\0';
    return p;
}

char *fmt_hex32(char *p, uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    *p++ = '0';
    *p++ = 'x';
    for (int i = 0; i < 8; i++)
        *p++ = digits[(v >> (28 - 4 * i)) & 0xfu];
    *p = '\0';
    return p;
}

char *fmt_dec(char *p, uint32_t v)
{
    char tmp[10];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    *p = '\0';
    return p;
}

char *fmt_int(char *p, int32_t v)
{
    if (v >= 0)
        return fmt_dec(p, (uint32_t)v);
    *p++ = '-';
    /* Negate in unsigned arithmetic so INT32_MIN does not overflow. */
    return fmt_dec(p, 0u - (uint32_t)v);
}

void out_str(print_sink sink, const char *s)
{
    sink(s);
}

void out_hex32(print_sink sink, uint32_t v)
{
    char buf[12];
    fmt_hex32(buf, v);
    sink(buf);
}

void out_dec(print_sink sink, uint32_t v)
{
    char buf[12];
    fmt_dec(buf, v);
    sink(buf);
}
