// Settings kept in flash as vendor firmware keeps them, through libopencm3's flash routines: the
// last 1 KiB page of the STM32F100RB's 128 KiB is erased, four half-words programmed and read
// back; programming a half-word again without erasing fails with PGERR and leaves it; the flash
// is locked again, after which CR ignores a store. TIM2 counts the erase's milliseconds. Prints
// "page=ffff words=1234,abcd,0,5a5a pgerr=1 kept=1234 locked=1 erase_ms=N".
#include "console.h"

#include <libopencm3/stm32/flash.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/timer.h>

#define PAGE 0x0801FC00u

static void print(const char *label, unsigned value, int hex)
{
	static const char digits[] = "0123456789abcdef";
	char text[24];
	char reversed[10];
	unsigned n = 0, d = 0;
	while (*label)
		text[n++] = *label++;
	do {
		reversed[d++] = digits[hex ? value % 16 : value % 10];
		value /= hex ? 16 : 10;
	} while (value);
	while (d)
		text[n++] = reversed[--d];
	text[n] = 0;
	console_print(text);
}

int main(void)
{
	console_setup();
	rcc_periph_clock_enable(RCC_TIM2);
	timer_set_prescaler(TIM2, 24000 - 1);  // milliseconds
	timer_set_period(TIM2, 0xffff);
	timer_generate_event(TIM2, TIM_EGR_UG);

	const volatile uint16_t *settings = (const volatile uint16_t *)PAGE;
	static const uint16_t values[4] = {0x1234, 0xabcd, 0x0000, 0x5a5a};

	flash_unlock();
	timer_enable_counter(TIM2);
	flash_erase_page(PAGE);
	const unsigned erase_ms = timer_get_counter(TIM2);
	print("page=", settings[0], 1);
	for (int i = 0; i < 4; i++)
		flash_program_half_word(PAGE + 2u * i, values[i]);
	print(" words=", settings[0], 1);
	for (int i = 1; i < 4; i++)
		print(",", settings[i], 1);

	flash_clear_status_flags();
	flash_program_half_word(PAGE, 0x4321);
	print(" pgerr=", (flash_get_status_flags() & FLASH_SR_PGERR) != 0, 0);
	print(" kept=", settings[0], 1);
	flash_clear_status_flags();

	flash_lock();
	FLASH_CR |= FLASH_CR_PG;
	print(" locked=", (FLASH_CR & FLASH_CR_LOCK) && !(FLASH_CR & FLASH_CR_PG), 0);
	print(" erase_ms=", erase_ms, 0);
	console_print("\r\n");
	done();
	return 0;
}
