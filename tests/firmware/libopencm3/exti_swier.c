// EXTI line 0 triggered from software and SysTick, as vendor firmware takes external and tick
// interrupts: EXTI0 unmasked (rising edge, source PA0 through AFIO_EXTICR1), the firmware setting
// EXTI_SWIER bit 0 five times, exti0_isr clearing the pending bit through EXTI_PR and counting;
// then SysTick at 1 ms (24 MHz AHB, reload 23999) for 10 ticks. Prints "exti=5\r\n" and
// "systick=10\r\n" on USART1 (115200 8N1, polled), then idles in done() (tests/app/libopencm3_test.cpp).
#include "console.h"

#include <libopencm3/cm3/nvic.h>
#include <libopencm3/cm3/systick.h>
#include <libopencm3/stm32/exti.h>
#include <libopencm3/stm32/gpio.h>
#include <libopencm3/stm32/rcc.h>

#define TRIGGERS 5
#define SYSTICKS 10

static volatile unsigned exti_count;
static volatile unsigned systick_count;

void exti0_isr(void)
{
	exti_reset_request(EXTI0);
	exti_count++;
}

void sys_tick_handler(void)
{
	systick_count++;
}

static void print_count(const char *name, unsigned n)
{
	char digits[4];
	int i = 0;
	console_print(name);
	do {
		digits[i++] = (char)('0' + n % 10);
		n /= 10;
	} while (n && i < 4);
	char line[7];
	int n_out = 0;
	while (i)
		line[n_out++] = digits[--i];
	line[n_out++] = '\r';
	line[n_out++] = '\n';
	line[n_out] = '\0';
	console_print(line);
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

	for (unsigned i = 1; i <= TRIGGERS; i++) {
		EXTI_SWIER |= EXTI0;
		while (exti_count < i)
			;
	}
	print_count("exti=", exti_count);

	systick_set_clocksource(STK_CSR_CLKSOURCE_AHB);
	systick_set_reload(24000 - 1);
	systick_clear();
	systick_interrupt_enable();
	systick_counter_enable();
	while (systick_count < SYSTICKS)
		;
	systick_counter_disable();
	print_count("systick=", systick_count);

	done();
	return 0;
}
