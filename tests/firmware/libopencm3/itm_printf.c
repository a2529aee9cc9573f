// printf over SWO as libopencm3 firmware sets it up on an STM32F1 (libopencm3's cm3/itm.h,
// cm3/tpiu.h, stm32/dbgmcu.h): the core at 24 MHz, TRCENA, the TPIU in Manchester at a prescaler of
// 7 with the formatter off, the TRACESWO pin on, the ITM unlocked with trace bus ID 1 and port 0
// enabled; each character waits for FIFOREADY. It prints two lines on ITM port 0 (what an SWO
// viewer shows) and one on USART1, then idles in done().
#include "console.h"

#include <libopencm3/cm3/itm.h>
#include <libopencm3/cm3/scs.h>
#include <libopencm3/cm3/tpiu.h>
#include <libopencm3/stm32/dbgmcu.h>

static void trace_setup(void)
{
	SCS_DEMCR |= SCS_DEMCR_TRCENA;
	TPIU_SPPR = TPIU_SPPR_ASYNC_MANCHESTER;
	TPIU_ACPR = 7;
	TPIU_FFCR &= ~TPIU_FFCR_ENFCONT;
	DBGMCU_CR = DBGMCU_CR_TRACE_IOEN | DBGMCU_CR_TRACE_MODE_ASYNC;
	ITM_LAR = CORESIGHT_LAR_KEY;
	ITM_TCR = (1 << 16) | ITM_TCR_ITMENA;
	ITM_TER[0] = 1;
}

static void trace_send_blocking(char c)
{
	while (!(ITM_STIM8(0) & ITM_STIM_FIFOREADY))
		;
	ITM_STIM8(0) = c;
}

static void trace_print(const char *s)
{
	while (*s)
		trace_send_blocking(*s++);
}

int main(void)
{
	console_setup();
	trace_setup();
	trace_print("swo: hello from libopencm3\r\n");
	for (int i = 0; i < 3; i++)
		trace_print(i == 2 ? "swo: 2\r\n" : i == 1 ? "swo: 1\r\n" : "swo: 0\r\n");
	console_print("usart: done\r\n");
	done();
}
