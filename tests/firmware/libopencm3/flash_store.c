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
	console_print_number("page=", settings[0], 16);
	for (int i = 0; i < 4; i++)
		flash_program_half_word(PAGE + 2u * i, values[i]);
	console_print_number(" words=", settings[0], 16);
	for (int i = 1; i < 4; i++)
		console_print_number(",", settings[i], 16);

	flash_clear_status_flags();
	flash_program_half_word(PAGE, 0x4321);
	console_print_number(" pgerr=", (flash_get_status_flags() & FLASH_SR_PGERR) != 0, 10);
	console_print_number(" kept=", settings[0], 16);
	flash_clear_status_flags();

	flash_lock();
	FLASH_CR |= FLASH_CR_PG;
	console_print_number(" locked=", (FLASH_CR & FLASH_CR_LOCK) && !(FLASH_CR & FLASH_CR_PG), 10);
	console_print_number(" erase_ms=", erase_ms, 10);
	console_print("\r\n");
	done();
	return 0;
}
