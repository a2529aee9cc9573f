// A button on PA0 that interrupts, as vendor firmware wires one: EXTI line 0 selected to port A
// (AFIO_EXTICR1), rising edges only, its interrupt counting presses. Prints "presses=2\r\n" on
// USART1 after the second press and idles in done(); the presses are stimuli on GPIOA's IDR
// (tests/app/libopencm3_test.cpp), the falling edge between them must not count.
#include <libopencm3/cm3/nvic.h>
#include <libopencm3/stm32/exti.h>
#include <libopencm3/stm32/gpio.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/usart.h>

static volatile unsigned presses;

void exti0_isr(void)
{
	exti_reset_request(EXTI0);
	presses++;
}

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
	rcc_periph_clock_enable(RCC_AFIO);
	rcc_periph_clock_enable(RCC_USART1);

	gpio_set_mode(GPIOA, GPIO_MODE_OUTPUT_50_MHZ, GPIO_CNF_OUTPUT_ALTFN_PUSHPULL, GPIO_USART1_TX);
	usart_set_baudrate(USART1, 115200);
	usart_set_databits(USART1, 8);
	usart_set_stopbits(USART1, USART_STOPBITS_1);
	usart_set_mode(USART1, USART_MODE_TX);
	usart_set_parity(USART1, USART_PARITY_NONE);
	usart_set_flow_control(USART1, USART_FLOWCONTROL_NONE);
	usart_enable(USART1);

	gpio_set_mode(GPIOA, GPIO_MODE_INPUT, GPIO_CNF_INPUT_FLOAT, GPIO0);
	exti_select_source(EXTI0, GPIOA);
	exti_set_trigger(EXTI0, EXTI_TRIGGER_RISING);
	exti_enable_request(EXTI0);
	nvic_enable_irq(NVIC_EXTI0_IRQ);

	while (presses < 2)
		;
	const char *s = presses == 2 ? "presses=2\r\n" : "presses wrong\r\n";
	while (*s)
		usart_send_blocking(USART1, (uint16_t)*s++);
	while (!usart_get_flag(USART1, USART_SR_TC))
		;
	done();
	return 0;
}
