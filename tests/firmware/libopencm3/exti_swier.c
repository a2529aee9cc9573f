// EXTI line 0 triggered from software and SysTick, as vendor firmware takes external and tick
// interrupts: EXTI0 unmasked (rising edge, source PA0 through AFIO_EXTICR1), the firmware setting
// EXTI_SWIER bit 0 five times, exti0_isr clearing the pending bit through EXTI_PR and counting;
// then SysTick at 1 ms (24 MHz AHB, reload 23999) for 10 ticks. Prints "exti=5\r\n" and
// "systick=10\r\n" on USART1 (115200 8N1, polled), then idles in done() (tests/app/libopencm3_test.cpp).
#include <libopencm3/cm3/nvic.h>
#include <libopencm3/cm3/systick.h>
#include <libopencm3/stm32/exti.h>
#include <libopencm3/stm32/gpio.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/usart.h>

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

static void print(const char *s)
{
	while (*s)
		usart_send_blocking(USART1, (uint16_t)*s++);
	// The last byte has left the line when TC is set.
	while (!usart_get_flag(USART1, USART_SR_TC))
		;
}

static void print_count(const char *name, unsigned n)
{
	char digits[4];
	int i = 0;
	print(name);
	do {
		digits[i++] = (char)('0' + n % 10);
		n /= 10;
	} while (n && i < 4);
	while (i)
		usart_send_blocking(USART1, (uint16_t)digits[--i]);
	print("\r\n");
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
