// USART1 transmission driven by its TXE interrupt, as interrupt-driven vendor firmware sends: the
// core at 24 MHz from the 8 MHz HSE through the PLL, USART1 at 115200 8N1 on PA9, usart1_isr
// writing the next byte of the text each time the data register empties and turning TXEIE off
// after the last. Prints "irq tx: hello\r\n" once, then idles in done() (tests/app/libopencm3_test.cpp).
#include <libopencm3/cm3/nvic.h>
#include <libopencm3/stm32/gpio.h>
#include <libopencm3/stm32/rcc.h>
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

// Where the program idles once it has printed, as real firmware does: the tests stop there
// (--stop-at done).
void done(void) __attribute__((noinline, noreturn));
void done(void)
{
	while (1)
		;
}

int main(void)
{
	rcc_clock_setup_pll(&rcc_hse_configs[RCC_CLOCK_HSE8_24MHZ]);
	rcc_periph_clock_enable(RCC_GPIOA);
	rcc_periph_clock_enable(RCC_USART1);

	gpio_set_mode(GPIOA, GPIO_MODE_OUTPUT_50_MHZ, GPIO_CNF_OUTPUT_ALTFN_PUSHPULL, GPIO_USART1_TX);
	usart_set_baudrate(USART1, 115200);
	usart_set_databits(USART1, 8);
	usart_set_stopbits(USART1, USART_STOPBITS_1);
	usart_set_mode(USART1, USART_MODE_TX);
	usart_set_parity(USART1, USART_PARITY_NONE);
	usart_set_flow_control(USART1, USART_FLOWCONTROL_NONE);
	usart_enable(USART1);

	nvic_enable_irq(NVIC_USART1_IRQ);
	usart_enable_tx_interrupt(USART1);

	while (!sent)
		;
	// The last byte has left the line when TC is set.
	while (!usart_get_flag(USART1, USART_SR_TC))
		;
	done();
	return 0;
}
