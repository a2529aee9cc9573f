#include "cmsdk_uart.h"

static inline volatile uint32_t *uart_reg(uint32_t base, uint32_t off)
{
    return (volatile uint32_t *)(uintptr_t)(base + off);
}

void uart_init(uint32_t base, uint32_t bauddiv)
{
    *uart_reg(base, CMSDK_UART_BAUDDIV) = bauddiv;
    *uart_reg(base, CMSDK_UART_CTRL) = CMSDK_UART_CTRL_TXEN | CMSDK_UART_CTRL_RXEN;
}

void uart_putc(uint32_t base, char c)
{
    while (*uart_reg(base, CMSDK_UART_STATE) & CMSDK_UART_STATE_TXFULL) {
    }
    *uart_reg(base, CMSDK_UART_DATA) = (uint8_t)c;
}

void uart_puts(uint32_t base, const char *s)
{
    while (*s)
        uart_putc(base, *s++);
}
