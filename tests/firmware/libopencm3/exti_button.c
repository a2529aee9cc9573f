// A button on PA0 that interrupts, as vendor firmware wires one: EXTI line 0 selected to port A
// (AFIO_EXTICR1), rising edges only, its interrupt counting presses. Prints "presses=2\r\n" on
// USART1 after the second press and idles in done(); the presses are stimuli on GPIOA's IDR
// (tests/app/libopencm3_test.cpp), the falling edge between them must not count.
#include "console.h"

#include <libopencm3/cm3/nvic.h>
#include <libopencm3/stm32/exti.h>
#include <libopencm3/stm32/gpio.h>
#include <libopencm3/stm32/rcc.h>

static volatile unsigned presses;

void exti0_isr(void)
{
	exti_reset_request(EXTI0);
	presses++;
}

int main(void)
{
	console_setup();
	rcc_periph_clock_enable(RCC_AFIO);

	gpio_set_mode(GPIOA, GPIO_MODE_INPUT, GPIO_CNF_INPUT_FLOAT, GPIO0);
	exti_select_source(EXTI0, GPIOA);
	exti_set_trigger(EXTI0, EXTI_TRIGGER_RISING);
	exti_enable_request(EXTI0);
	nvic_enable_irq(NVIC_EXTI0_IRQ);

	while (presses < 2)
		;
	console_print(presses == 2 ? "presses=2\r\n" : "presses wrong\r\n");
	done();
	return 0;
}
