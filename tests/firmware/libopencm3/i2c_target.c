// I2C1 as vendor firmware drives a sensor, polled, at 100 kHz (PCLK1 24 MHz: FREQ 24, CCR 120):
// libopencm3's i2c_transfer7 writes the register pointer and two bytes to register 3 of the
// target at 0x48, then reads them back after a repeated START; a two-byte read of register 0
// follows the reference manual's POS sequence (ACK cleared after ADDR, STOP after BTF, DR read
// twice); an address nobody acknowledges ends in AF. Prints "temp=0xHHHH os=0xHHHH nack=N".
// The target is the scenario's (tests/app/libopencm3_test.cpp gives it temperature bytes at 0).
#include "console.h"

#include <libopencm3/stm32/i2c.h>
#include <libopencm3/stm32/rcc.h>

#define TARGET 0x48
#define NOBODY 0x50

static void print_hex16(const char *label, unsigned value)
{
	static const char digits[] = "0123456789abcdef";
	char text[16];
	unsigned n = 0;
	while (*label)
		text[n++] = *label++;
	text[n++] = '0';
	text[n++] = 'x';
	for (int shift = 12; shift >= 0; shift -= 4)
		text[n++] = digits[(value >> shift) & 0xf];
	text[n] = 0;
	console_print(text);
}

static unsigned read_two_bytes(uint8_t reg)
{
	i2c_transfer7(I2C1, TARGET, &reg, 1, 0, 0);  // the register pointer, then STOP
	while (I2C_SR2(I2C1) & I2C_SR2_BUSY)
		;
	i2c_send_start(I2C1);
	while (!((I2C_SR1(I2C1) & I2C_SR1_SB) && (I2C_SR2(I2C1) & I2C_SR2_MSL)))
		;
	i2c_send_7bit_address(I2C1, TARGET, I2C_READ);
	I2C_CR1(I2C1) |= I2C_CR1_POS | I2C_CR1_ACK;
	while (!(I2C_SR1(I2C1) & I2C_SR1_ADDR))
		;
	(void)I2C_SR2(I2C1);
	I2C_CR1(I2C1) &= ~I2C_CR1_ACK;
	while (!(I2C_SR1(I2C1) & I2C_SR1_BTF))
		;
	I2C_CR1(I2C1) |= I2C_CR1_STOP;
	unsigned value = (unsigned)I2C_DR(I2C1) << 8;
	value |= I2C_DR(I2C1);
	I2C_CR1(I2C1) &= ~I2C_CR1_POS;
	return value;
}

static int nobody_answers(void)
{
	while (I2C_SR2(I2C1) & I2C_SR2_BUSY)
		;
	i2c_send_start(I2C1);
	while (!(I2C_SR1(I2C1) & I2C_SR1_SB))
		;
	i2c_send_7bit_address(I2C1, NOBODY, I2C_WRITE);
	while (!(I2C_SR1(I2C1) & (I2C_SR1_ADDR | I2C_SR1_AF)))
		;
	const int nacked = (I2C_SR1(I2C1) & I2C_SR1_AF) != 0;
	I2C_SR1(I2C1) &= ~I2C_SR1_AF;
	i2c_send_stop(I2C1);
	return nacked;
}

int main(void)
{
	console_setup();
	rcc_periph_clock_enable(RCC_I2C1);
	i2c_peripheral_disable(I2C1);
	i2c_set_clock_frequency(I2C1, 24);
	i2c_set_standard_mode(I2C1);
	i2c_set_ccr(I2C1, 120);
	i2c_set_trise(I2C1, 25);
	i2c_peripheral_enable(I2C1);

	const uint8_t write_os[3] = {3, 0x1a, 0x00};
	i2c_transfer7(I2C1, TARGET, write_os, 3, 0, 0);
	uint8_t pointer = 3, os[2] = {0, 0};
	i2c_transfer7(I2C1, TARGET, &pointer, 1, os, 2);
	const unsigned temperature = read_two_bytes(0);
	const int nack = nobody_answers();

	print_hex16("temp=", temperature);
	print_hex16(" os=", (unsigned)os[0] << 8 | os[1]);
	console_print(nack ? " nack=1\r\n" : " nack=0\r\n");
	done();
	return 0;
}
