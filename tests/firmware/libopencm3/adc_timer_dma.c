// The STM32F1 ADC as vendor firmware drives it, in three parts, each printed on the console
// (USART1, console.c; 24 MHz, ADCCLK = PCLK2 / 2 = 12 MHz):
//   1. a regular conversion of the temperature sensor (channel 16) started by software and polled
//      on EOC: "temp=<DR>";
//   2. TIM2 at 1 kHz sending TRGO on each update, which starts an injected conversion of VREFINT
//      (channel 17) with JOFR1 = 89 subtracted; adc1_2_isr counts the JEOC interrupts and keeps
//      JDR1; after 20 of them the timer stops: "jeoc=20 vref=<JDR1> ms=<TIM3 count>" (TIM3
//      counting milliseconds from the first trigger's start);
//   3. a scan of the regular sequence 16, 17, 16, 17 with each result moved by DMA1 channel 1 into
//      a buffer, waited for on TCIF: "dma=<4 values>".
// tests/app/libopencm3_test.cpp checks the values against the board preset's ADC inputs.
#include "console.h"

#include <libopencm3/cm3/nvic.h>
#include <libopencm3/stm32/adc.h>
#include <libopencm3/stm32/dma.h>
#include <libopencm3/stm32/rcc.h>
#include <libopencm3/stm32/timer.h>

#define TRIGGERS 20

static volatile unsigned jeoc_count;
static volatile unsigned vref;
static volatile unsigned short samples[4];

void adc1_2_isr(void)
{
	if (adc_eoc_injected(ADC1)) {
		adc_clear_flag(ADC1, ADC_SR_JEOC);
		vref = adc_read_injected(ADC1, 1);
		jeoc_count++;
	}
}

static void adc_setup(void)
{
	rcc_periph_clock_enable(RCC_ADC1);
	rcc_set_adcpre(RCC_CFGR_ADCPRE_DIV2);
	adc_power_off(ADC1);
	adc_disable_scan_mode(ADC1);
	adc_set_single_conversion_mode(ADC1);
	adc_enable_external_trigger_regular(ADC1, ADC_CR2_EXTSEL_SWSTART);
	adc_enable_temperature_sensor();
	adc_set_sample_time_on_all_channels(ADC1, ADC_SMPR_SMP_239DOT5CYC);
	adc_power_on(ADC1);
	for (volatile int i = 0; i < 100; i++)  // tSTAB
		;
	adc_reset_calibration(ADC1);
	adc_calibrate(ADC1);
}

static void regular_polled(void)
{
	uint8_t channel = ADC_CHANNEL_TEMP;
	adc_set_regular_sequence(ADC1, 1, &channel);
	adc_start_conversion_regular(ADC1);
	while (!adc_eoc(ADC1))
		;
	console_print_number("temp=", adc_read_regular(ADC1), 10);
	console_print("\r\n");
}

static void injected_by_timer(void)
{
	// TIM2 first: its UG (loading PSC) is an update, and with MMS at reset UG is TRGO as well, so
	// the ADC listens only once the timer is set up.
	rcc_periph_clock_enable(RCC_TIM2);
	timer_set_mode(TIM2, TIM_CR1_CKD_CK_INT, TIM_CR1_CMS_EDGE, TIM_CR1_DIR_UP);
	timer_set_prescaler(TIM2, 24 - 1);
	timer_set_period(TIM2, 1000 - 1);
	timer_generate_event(TIM2, TIM_EGR_UG);
	timer_set_master_mode(TIM2, TIM_CR2_MMS_UPDATE);

	// TIM3 counts milliseconds, to show when the 20 triggers came.
	rcc_periph_clock_enable(RCC_TIM3);
	timer_set_prescaler(TIM3, 24000 - 1);
	timer_set_period(TIM3, 0xffff);
	timer_generate_event(TIM3, TIM_EGR_UG);

	uint8_t channel = ADC_CHANNEL_VREF;
	adc_set_injected_sequence(ADC1, 1, &channel);
	adc_set_injected_offset(ADC1, 1, 89);
	adc_enable_external_trigger_injected(ADC1, ADC_CR2_JEXTSEL_TIM2_TRGO);
	adc_enable_eoc_interrupt_injected(ADC1);
	nvic_enable_irq(NVIC_ADC1_2_IRQ);

	timer_enable_counter(TIM3);
	timer_enable_counter(TIM2);
	while (jeoc_count < TRIGGERS)
		;
	timer_disable_counter(TIM2);
	const unsigned ms = timer_get_counter(TIM3);
	adc_disable_eoc_interrupt_injected(ADC1);
	console_print_number("jeoc=", jeoc_count, 10);
	console_print_number(" vref=", vref, 10);
	console_print_number(" ms=", ms, 10);
	console_print("\r\n");
}

static void scan_with_dma(void)
{
	rcc_periph_clock_enable(RCC_DMA1);
	dma_channel_reset(DMA1, DMA_CHANNEL1);
	dma_set_peripheral_address(DMA1, DMA_CHANNEL1, (uint32_t)&ADC_DR(ADC1));
	dma_set_memory_address(DMA1, DMA_CHANNEL1, (uint32_t)samples);
	dma_set_number_of_data(DMA1, DMA_CHANNEL1, 4);
	dma_set_read_from_peripheral(DMA1, DMA_CHANNEL1);
	dma_enable_memory_increment_mode(DMA1, DMA_CHANNEL1);
	dma_set_peripheral_size(DMA1, DMA_CHANNEL1, DMA_CCR_PSIZE_16BIT);
	dma_set_memory_size(DMA1, DMA_CHANNEL1, DMA_CCR_MSIZE_16BIT);
	dma_enable_channel(DMA1, DMA_CHANNEL1);

	uint8_t sequence[4] = {ADC_CHANNEL_TEMP, ADC_CHANNEL_VREF, ADC_CHANNEL_TEMP, ADC_CHANNEL_VREF};
	adc_set_regular_sequence(ADC1, 4, sequence);
	adc_enable_scan_mode(ADC1);
	adc_enable_dma(ADC1);
	adc_start_conversion_regular(ADC1);
	while (!dma_get_interrupt_flag(DMA1, DMA_CHANNEL1, DMA_TCIF))
		;
	console_print_number("dma=", samples[0], 10);
	for (int i = 1; i < 4; i++)
		console_print_number(",", samples[i], 10);
	console_print("\r\n");
}

int main(void)
{
	console_setup();
	adc_setup();
	regular_polled();
	injected_by_timer();
	scan_with_dma();
	done();
	return 0;
}
