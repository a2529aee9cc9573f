// DMA as vendor firmware uses it: DMA1 channel 1 copies a table memory to memory (MEM2MEM) while
// the core waits for TCIF1; then DMA1 channel 4, USART1_TX's channel (RM0008 table 78), sends a
// text through USART1 (CR3.DMAT) and raises its transfer-complete interrupt, whose handler clears
// the flag and counts. Prints "copy ok\r\n" through the polled USART, then the DMA'd text, then
// "dma irq=1\r\n", and idles in done() (tests/app/libopencm3_test.cpp).
#include "console.h"

#include <libopencm3/cm3/nvic.h>
#include <libopencm3/stm32/dma.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/usart.h>

static const unsigned table[8] = {1, 1, 2, 3, 5, 8, 13, 21};
static unsigned copy[8];
static const char text[] = "sent by dma\r\n";
static volatile unsigned interrupts;

void dma1_channel4_isr(void)
{
	if (dma_get_interrupt_flag(DMA1, DMA_CHANNEL4, DMA_TCIF)) {
		dma_clear_interrupt_flags(DMA1, DMA_CHANNEL4, DMA_TCIF);
		interrupts++;
	}
}

int main(void)
{
	console_setup();
	rcc_periph_clock_enable(RCC_DMA1);

	// Memory to memory: the peripheral address is the source.
	dma_channel_reset(DMA1, DMA_CHANNEL1);
	dma_enable_mem2mem_mode(DMA1, DMA_CHANNEL1);
	dma_set_peripheral_address(DMA1, DMA_CHANNEL1, (uint32_t)table);
	dma_set_memory_address(DMA1, DMA_CHANNEL1, (uint32_t)copy);
	dma_set_number_of_data(DMA1, DMA_CHANNEL1, 8);
	dma_set_peripheral_size(DMA1, DMA_CHANNEL1, DMA_CCR_PSIZE_32BIT);
	dma_set_memory_size(DMA1, DMA_CHANNEL1, DMA_CCR_MSIZE_32BIT);
	dma_enable_peripheral_increment_mode(DMA1, DMA_CHANNEL1);
	dma_enable_memory_increment_mode(DMA1, DMA_CHANNEL1);
	dma_enable_channel(DMA1, DMA_CHANNEL1);
	while (!dma_get_interrupt_flag(DMA1, DMA_CHANNEL1, DMA_TCIF))
		;
	int same = 1;
	for (int i = 0; i < 8; i++)
		same &= copy[i] == table[i];
	console_print(same ? "copy ok\r\n" : "copy wrong\r\n");

	// Memory to USART1's data register, paced by TXE.
	dma_channel_reset(DMA1, DMA_CHANNEL4);
	dma_set_read_from_memory(DMA1, DMA_CHANNEL4);
	dma_set_peripheral_address(DMA1, DMA_CHANNEL4, (uint32_t)&USART1_DR);
	dma_set_memory_address(DMA1, DMA_CHANNEL4, (uint32_t)text);
	dma_set_number_of_data(DMA1, DMA_CHANNEL4, sizeof text - 1);
	dma_set_peripheral_size(DMA1, DMA_CHANNEL4, DMA_CCR_PSIZE_8BIT);
	dma_set_memory_size(DMA1, DMA_CHANNEL4, DMA_CCR_MSIZE_8BIT);
	dma_enable_memory_increment_mode(DMA1, DMA_CHANNEL4);
	dma_enable_transfer_complete_interrupt(DMA1, DMA_CHANNEL4);
	nvic_enable_irq(NVIC_DMA1_CHANNEL4_IRQ);
	usart_enable_tx_dma(USART1);
	dma_enable_channel(DMA1, DMA_CHANNEL4);
	while (!interrupts)
		;
	while (!usart_get_flag(USART1, USART_SR_TC))
		;
	usart_disable_tx_dma(USART1);
	console_print(interrupts == 1 ? "dma irq=1\r\n" : "dma irq wrong\r\n");
	done();
	return 0;
}
