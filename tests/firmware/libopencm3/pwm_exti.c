// A PWM output read back on its pin, as firmware that measures its own signal does: TIM3 channel 1
// in PWM mode 1 at 1 kHz, 25% duty (24 MHz: PSC 23, ARR 999, CCR1 250) on PA6 in alternate-function
// mode; AFIO routes PA6 to EXTI line 6 on both edges, and exti9_5_isr stamps each edge with TIM2
// (1 MHz). After ten rising edges the output is forced inactive. Prints "rising=10 high_us=H
// period_us=P pin=L": the second high phase and the last period measured, and PA6's level through
// IDR after the force (0).
#include "console.h"

#include <libopencm3/cm3/nvic.h>
#include <libopencm3/stm32/exti.h>
#include <libopencm3/stm32/gpio.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/timer.h>

static volatile unsigned rising, high_us, period_us, last_rise;

void exti9_5_isr(void)
{
	exti_reset_request(EXTI6);
	const unsigned now = timer_get_counter(TIM2);
	if (gpio_get(GPIOA, GPIO6)) {
		if (rising)
			period_us = (now - last_rise) & 0xffff;
		last_rise = now;
		rising++;
	} else if (rising >= 2 && !high_us) {
		high_us = (now - last_rise) & 0xffff;  // a whole high phase, the counter running
	}
}

int main(void)
{
	console_setup();
	rcc_periph_clock_enable(RCC_GPIOA);
	rcc_periph_clock_enable(RCC_AFIO);
	rcc_periph_clock_enable(RCC_TIM2);
	rcc_periph_clock_enable(RCC_TIM3);
	gpio_set_mode(GPIOA, GPIO_MODE_OUTPUT_50_MHZ, GPIO_CNF_OUTPUT_ALTFN_PUSHPULL, GPIO6);

	timer_set_prescaler(TIM2, 24 - 1);  // microseconds
	timer_set_period(TIM2, 0xffff);
	timer_generate_event(TIM2, TIM_EGR_UG);
	timer_enable_counter(TIM2);

	exti_select_source(EXTI6, GPIOA);
	exti_set_trigger(EXTI6, EXTI_TRIGGER_BOTH);
	exti_enable_request(EXTI6);
	nvic_enable_irq(NVIC_EXTI9_5_IRQ);

	timer_set_prescaler(TIM3, 24 - 1);
	timer_set_period(TIM3, 1000 - 1);
	timer_set_oc_value(TIM3, TIM_OC1, 250);
	timer_set_oc_mode(TIM3, TIM_OC1, TIM_OCM_PWM1);
	timer_enable_oc_output(TIM3, TIM_OC1);
	timer_generate_event(TIM3, TIM_EGR_UG);
	timer_enable_counter(TIM3);

	while (rising < 10)
		;
	timer_set_oc_mode(TIM3, TIM_OC1, TIM_OCM_FORCE_LOW);
	const unsigned pin = gpio_get(GPIOA, GPIO6) != 0;
	console_print_number("rising=", rising, 10);
	console_print_number(" high_us=", high_us, 10);
	console_print_number(" period_us=", period_us, 10);
	console_print_number(" pin=", pin, 10);
	console_print("\r\n");
	done();
	return 0;
}
