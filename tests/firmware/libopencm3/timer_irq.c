// A 1 kHz TIM2 update interrupt at 24 MHz, as timer-driven vendor firmware ticks: the core and APB1
// at 24 MHz (HSE 8 MHz, PLL x3, APB1 undivided: TIM2 counts at 24 MHz), prescaler 24 (1 MHz) and
// period 1000, tim2_isr counting updates and clearing UIF. After the 50th update (50 ms after the
// counter starts) main stops the timer and prints "ticks=50\r\n" on USART1 (115200 8N1, polled),
// then idles in done() (tests/app/libopencm3_test.cpp checks the print's emulated time).
#include "console.h"

#include <libopencm3/cm3/nvic.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/timer.h>

#define TICKS 50

static volatile unsigned ticks;

void tim2_isr(void)
{
	if (timer_get_flag(TIM2, TIM_SR_UIF)) {
		timer_clear_flag(TIM2, TIM_SR_UIF);
		ticks++;
	}
}


int main(void)
{
	console_setup();
	rcc_periph_clock_enable(RCC_TIM2);

	rcc_periph_reset_pulse(RST_TIM2);
	timer_set_mode(TIM2, TIM_CR1_CKD_CK_INT, TIM_CR1_CMS_EDGE, TIM_CR1_DIR_UP);
	timer_set_prescaler(TIM2, 24 - 1);
	timer_set_period(TIM2, 1000 - 1);
	// PSC is preloaded: an update event loads it now (and sets UIF, cleared before the IRQ is on).
	timer_generate_event(TIM2, TIM_EGR_UG);
	timer_clear_flag(TIM2, TIM_SR_UIF);
	timer_enable_irq(TIM2, TIM_DIER_UIE);
	nvic_enable_irq(NVIC_TIM2_IRQ);
	timer_enable_counter(TIM2);

	while (ticks < TICKS)
		;
	timer_disable_counter(TIM2);
	unsigned n = ticks;
	char line[] = "ticks=00\r\n";
	line[6] = (char)('0' + (n / 10) % 10);
	line[7] = (char)('0' + n % 10);
	console_print(line);
	done();
	return 0;
}
