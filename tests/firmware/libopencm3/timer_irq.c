// A 1 kHz TIM2 update interrupt at 24 MHz, as timer-driven vendor firmware ticks: the core and APB1
// at 24 MHz (HSE 8 MHz, PLL x3, APB1 undivided: TIM2 counts at 24 MHz), prescaler 24 (1 MHz) and
// period 1000, tim2_isr counting updates and clearing UIF. After the 50th update (50 ms after the
// counter starts) main stops the timer and prints "ticks=50\r\n" on USART1 (115200 8N1, polled),
// then idles in done() (tests/app/libopencm3_test.cpp checks the print's emulated time).
#include <libopencm3/cm3/nvic.h>
#include <libopencm3/stm32/gpio.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/timer.h>
#include <libopencm3/stm32/usart.h>

#define TICKS 50

static volatile unsigned ticks;

void tim2_isr(void)
{
	if (timer_get_flag(TIM2, TIM_SR_UIF)) {
		timer_clear_flag(TIM2, TIM_SR_UIF);
		ticks++;
	}
}

static void print(const char *s)
{
	while (*s)
		usart_send_blocking(USART1, (uint16_t)*s++);
	// The last byte has left the line when TC is set.
	while (!usart_get_flag(USART1, USART_SR_TC))
		;
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
	rcc_periph_clock_enable(RCC_TIM2);

	gpio_set_mode(GPIOA, GPIO_MODE_OUTPUT_50_MHZ, GPIO_CNF_OUTPUT_ALTFN_PUSHPULL, GPIO_USART1_TX);
	usart_set_baudrate(USART1, 115200);
	usart_set_databits(USART1, 8);
	usart_set_stopbits(USART1, USART_STOPBITS_1);
	usart_set_mode(USART1, USART_MODE_TX);
	usart_set_parity(USART1, USART_PARITY_NONE);
	usart_set_flow_control(USART1, USART_FLOWCONTROL_NONE);
	usart_enable(USART1);

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
	print(line);
	done();
	return 0;
}
