// USART1 transmission driven by its TXE interrupt, as interrupt-driven vendor firmware sends: the
// core at 24 MHz from the 8 MHz HSE through the PLL, USART1 at 115200 8N1 on PA9, usart1_isr
// writing the next byte of the text each time the data register empties and turning TXEIE off
// after the last. Prints "irq tx: hello\r\n" once, then idles in done() (tests/app/libopencm3_test.cpp).
#include "console.h"

#include <libopencm3/cm3/nvic.h>
#include <libopencm3/stm32/usart.h>

static const char text[] = "irq tx: hello\r\n";
static volatile unsigned next_byte;
static volatile int sent;

void usart1_isr(void)
{
	if ((USART_CR1(USART1) & USART_CR1_TXEIE) && usart_get_flag(USART1, USART_SR_TXE)) {
		if (text[next_byte] != '\0') {
			usart_send(USART1, (uint16_t)text[next_byte]);
			next_byte++;
		} else {
			usart_disable_tx_interrupt(USART1);
			sent = 1;
		}
	}
}


int main(void)
{
	console_setup();

	nvic_enable_irq(NVIC_USART1_IRQ);
	usart_enable_tx_interrupt(USART1);

	while (!sent)
		;
	console_print("");  // returns once the last byte has left the line (TC)
	done();
	return 0;
}
