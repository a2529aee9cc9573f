#ifndef EMUTRACE_CMSDK_UART_H
#define EMUTRACE_CMSDK_UART_H

#include <stdint.h>

/* CMSDK APB UART as found on the Arm MPS2 AN385 board. */
#define CMSDK_UART0_BASE 0x40004000u

#define CMSDK_UART_DATA 0x00u
#define CMSDK_UART_STATE 0x04u
#define CMSDK_UART_CTRL 0x08u
#define CMSDK_UART_INTSTATUS 0x0Cu /* reads: INTSTATUS, writes: INTCLEAR */
#define CMSDK_UART_INTCLEAR 0x0Cu
#define CMSDK_UART_BAUDDIV 0x10u

#define CMSDK_UART_STATE_TXFULL (1u << 0)
#define CMSDK_UART_STATE_RXFULL (1u << 1)
#define CMSDK_UART_CTRL_TXEN (1u << 0)
#define CMSDK_UART_CTRL_RXEN (1u << 1)

void uart_init(uint32_t base, uint32_t bauddiv);
void uart_putc(uint32_t base, char c);
void uart_puts(uint32_t base, const char *s);

#endif
