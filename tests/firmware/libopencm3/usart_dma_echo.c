// A USART driven through DMA both ways, in the order vendor examples set it up: DMA1 channel 4
// (USART1_TX, RM0008 table 78) is enabled with a text before CR3.DMAT asks for it, so nothing may
// move until the USART requests, and then a byte at a time as TXE allows; then DMA1 channel 5
// (USART1_RX) takes six received bytes into a buffer, which is printed back with "got=" once
// TCIF5 says they are there. tests/app/libopencm3_test.cpp sends the bytes (a uart_rx stimulus)
// and checks the text and its pace.
#include "console.h"

#include <libopencm3/stm32/dma.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/usart.h>

static const char text[] = "abcdefg\r\n";
static char received[7];

// A DMA1 channel between USART1's DR and `memory`, a byte at a time, the memory side advancing.
static void byte_channel(uint8_t channel, const void *memory, uint16_t count, int from_usart)
{
	dma_channel_reset(DMA1, channel);
	dma_set_peripheral_address(DMA1, channel, (uint32_t)&USART1_DR);
	dma_set_memory_address(DMA1, channel, (uint32_t)memory);
	dma_set_number_of_data(DMA1, channel, count);
	if (from_usart)
		dma_set_read_from_peripheral(DMA1, channel);
	else
		dma_set_read_from_memory(DMA1, channel);
	dma_enable_memory_increment_mode(DMA1, channel);
	dma_set_peripheral_size(DMA1, channel, DMA_CCR_PSIZE_8BIT);
	dma_set_memory_size(DMA1, channel, DMA_CCR_MSIZE_8BIT);
}

int main(void)
{
	console_setup();
	usart_set_mode(USART1, USART_MODE_TX_RX);
	rcc_periph_clock_enable(RCC_DMA1);

	byte_channel(DMA_CHANNEL4, text, sizeof text - 1, 0);
	dma_enable_channel(DMA1, DMA_CHANNEL4);
	usart_enable_tx_dma(USART1);
	while (!dma_get_interrupt_flag(DMA1, DMA_CHANNEL4, DMA_TCIF))
		;
	while (!usart_get_flag(USART1, USART_SR_TC))
		;
	usart_disable_tx_dma(USART1);

	byte_channel(DMA_CHANNEL5, received, 6, 1);
	dma_enable_channel(DMA1, DMA_CHANNEL5);
	usart_enable_rx_dma(USART1);
	while (!dma_get_interrupt_flag(DMA1, DMA_CHANNEL5, DMA_TCIF))
		;
	console_print("got=");
	console_print(received);
	console_print("\r\n");
	done();
	return 0;
}
