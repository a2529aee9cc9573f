/* Receives a line on UART0 by its RX interrupt (IRQ 0) while the core sleeps in WFI, then
 * prints it with the cycle at which the first byte arrived. The bytes come from a uart_rx
 * stimulus in tests/scenarios/uart_rx.yaml. */
#include <stdint.h>

#include "cortex_m.h"
#include "print.h"
#include "semihost.h"

#define UART0_DATA (*(volatile uint32_t *)0x40004000u)
#define UART0_STATE (*(volatile uint32_t *)0x40004004u)
#define UART0_CTRL (*(volatile uint32_t *)0x40004008u)
#define UART0_INTCLEAR (*(volatile uint32_t *)0x4000400Cu)

static volatile char line[64];
static volatile uint32_t length;
static volatile uint32_t complete;
static volatile uint64_t first_byte_at;

void IRQ0_Handler(void) {
    UART0_INTCLEAR = 2u; /* RX interrupt */
    while (UART0_STATE & 2u) { /* RX buffer full: take every byte that is there */
        char c = (char)UART0_DATA;
        if (length == 0) first_byte_at = sh_elapsed();
        if (c == '\n' || length == sizeof line - 1) complete = 1;
        else line[length++] = c;
    }
}

int main(void) {
    UART0_CTRL = 0x2u | 0x8u; /* RX enable, RX interrupt enable */
    nvic_enable_irq(0);
    while (!complete) __asm__ volatile("wfi");
    char buf[128];
    char *p = fmt_str(buf, "uart got '");
    for (uint32_t i = 0; i < length; ++i) *p++ = line[i];
    p = fmt_str(p, "' at cycle ");
    p = fmt_dec(p, (uint32_t)first_byte_at);
    fmt_str(p, "\n");
    print_to_semihosting(buf);
    return 0;
}
