#include "console.h"

#include <libopencm3/stm32/gpio.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/usart.h>

void console_setup(void)
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
}

void console_print(const char *s)
{
	while (*s)
		usart_send_blocking(USART1, (uint16_t)*s++);
	while (!usart_get_flag(USART1, USART_SR_TC))
		;
}

void console_print_number(const char *label, unsigned value, unsigned base)
{
	static const char digits[] = "0123456789abcdef";
	char text[48];
	char reversed[12];
	unsigned n = 0, d = 0;
	while (*label && n < sizeof text - sizeof reversed - 1)
		text[n++] = *label++;
	do {
		reversed[d++] = digits[value % base];
		value /= base;
	} while (value);
	while (d)
		text[n++] = reversed[--d];
	text[n] = 0;
	console_print(text);
}

void done(void)
{
	while (1)
		;
}
