// What our libopencm3 test programs share: the STM32VL-Discovery at 24 MHz (HSE 8 MHz through the
// PLL) with USART1 at 115200 8N1 on PA9 as the console, a polled print that returns once the last
// byte has left the line (TC), a number printed the same way, and done(), where a program idles
// once it has printed, as real firmware does: the tests stop there (--stop-at done).
#ifndef CONSOLE_H
#define CONSOLE_H

void console_setup(void);
void console_print(const char *s);
/* `label` then `value` in `base` (10 or 16, lower-case digits, no prefix), as one print. */
void console_print_number(const char *label, unsigned value, unsigned base);
void done(void) __attribute__((noinline, noreturn));

#endif
