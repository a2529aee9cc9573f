#ifndef EMUTRACE_PRINT_H
#define EMUTRACE_PRINT_H

#include <stdint.h>

/* Formatting without libc. Lines are assembled in a caller buffer with
 * the fmt_* helpers and then handed to a sink in one piece, so the host
 * sees each line as a single SYS_WRITE0 call. */
typedef void (*print_sink)(const char *s);

void print_to_semihosting(const char *s);
/* Writes to UART0 (0x40004000); the caller must uart_init() it first. */
void print_to_uart(const char *s);

/* Append to p, NUL-terminate, return the new end (the NUL). The caller
 * sizes the buffer; a formatted number needs at most 11 chars + NUL. */
char *fmt_str(char *p, const char *s);
char *fmt_hex32(char *p, uint32_t v); /* 0x%08x */
char *fmt_dec(char *p, uint32_t v);   /* %u */
char *fmt_int(char *p, int32_t v);    /* %d */

/* One-shot conveniences for unbuffered output. */
void out_str(print_sink sink, const char *s);
void out_hex32(print_sink sink, uint32_t v);
void out_dec(print_sink sink, uint32_t v);

#endif
