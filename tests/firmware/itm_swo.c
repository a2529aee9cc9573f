/* Firmware that sets up SWO itself, as CMSIS and libopencm3's traceswo do: DEMCR.TRCENA, the
 * TPIU's NRZ protocol and prescaler, the ITM unlocked with timestamps and DWT packets on, the DWT's
 * exception trace (and PC sampling with PC_SAMPLING). It prints over ITM port 0 with CMSIS's
 * ITM_SendChar (waiting while the port's FIFO is full), sends a word on port 1, takes three SysTick
 * interrupts, and exits. FLOOD: it writes port 0 without waiting, faster than the port carries.
 * FORMATTED: the TPIU's formatter stays on (frames under trace bus ID 1).
 * PERIODIC: a global timestamp every 8192 cycles (GTSFREQ 2) and a sync every 2^24 cycles
 * (SYNCENA, CYCCNTENA, SYNCTAP 1).
 * DATA_TRACE: the DWT's comparators trace a variable's loads and stores (PC and data value), a
 * buffer's stores (address offset and data value), and watch a flag whose MATCHED bit the
 * firmware reads back and prints.
 * BENCH_ROUNDS: then computes and prints a line per round that many times, with SysTick running
 * (bench/bench_swo.py). */
#include <stdint.h>

#include "cortex_m.h"
#include "semihost.h"

#define ITM_STIM8(n) (*(volatile uint8_t *)(0xE0000000u + 4u * (n)))
#define ITM_STIM32(n) (*(volatile uint32_t *)(0xE0000000u + 4u * (n)))
#define ITM_TER REG32(0xE0000E00u)
#define ITM_TCR REG32(0xE0000E80u)
#define ITM_LAR REG32(0xE0000FB0u)
#define DEMCR REG32(0xE000EDFCu)
#define TPIU_ACPR REG32(0xE0040010u)
#define TPIU_SPPR REG32(0xE00400F0u)
#define TPIU_FFCR REG32(0xE0040304u)

#ifndef PRESCALER
#define PRESCALER 3
#endif

static volatile uint32_t ticks;

#ifdef DATA_TRACE
#define DWT_COMP(n) REG32(0xE0001020u + 16u * (n))
#define DWT_MASK(n) REG32(0xE0001024u + 16u * (n))
#define DWT_FUNCTION(n) REG32(0xE0001028u + 16u * (n))
static volatile uint32_t watched;
static volatile uint16_t buffer[4] __attribute__((aligned(8)));
static volatile uint32_t flag;

static void pause(void) {
    for (volatile int i = 0; i < 20; ++i) {
    }
}

/* As a debugger or a trace library sets them up: the comparators hold from the next branch on. */
__attribute__((noinline)) static void trace_data(void) {
    DWT_COMP(0) = (uint32_t)&watched;
    DWT_MASK(0) = 0u;
    DWT_FUNCTION(0) = 0x3u; /* PC and data value, loads and stores */
    DWT_COMP(1) = (uint32_t)&buffer[0];
    DWT_MASK(1) = 3u; /* the 8 bytes of buffer */
    DWT_FUNCTION(1) = 0xFu | (1u << 5); /* stores: address offset and data value (EMITRANGE) */
    DWT_COMP(2) = (uint32_t)&flag;
    DWT_MASK(2) = 0u;
    DWT_FUNCTION(2) = 0x6u; /* a watchpoint on stores: MATCHED only */
}
#endif

void SysTick_Handler(void) {
    ticks++;
}

#ifndef FLOOD
/* CMSIS's ITM_SendChar. */
static void itm_send_char(char c) {
    if ((ITM_TCR & 1u) && (ITM_TER & 1u)) {
        while (ITM_STIM32(0) == 0u) {
        }
        ITM_STIM8(0) = (uint8_t)c;
    }
}

static void itm_puts(const char *s) {
    while (*s) itm_send_char(*s++);
}
#endif

int main(void) {
    DEMCR |= 1u << 24;       /* TRCENA */
    TPIU_SPPR = 2u;          /* NRZ (UART) */
    TPIU_ACPR = PRESCALER;   /* SWO at TRACECLKIN / (PRESCALER + 1) */
#ifdef FORMATTED
    TPIU_FFCR = 0x102u;      /* formatter on: 16-byte frames under the ITM's trace bus ID */
#else
    TPIU_FFCR = 0x100u;      /* formatter bypassed */
#endif
    ITM_LAR = 0xC5ACCE55u;
#ifdef PERIODIC
    ITM_TCR = (1u << 16) | (2u << 10) | (1u << 3) | (1u << 2) | (1u << 1) | 1u; /* GTSFREQ 2, SYNCENA */
#else
    ITM_TCR = (1u << 16) | (1u << 3) | (1u << 1) | 1u; /* TraceBusID 1, DWTENA, TSENA, ITMENA */
#endif
    ITM_TER = 0x3u;
#ifdef PC_SAMPLING
    DWT_CTRL = (1u << 16) | (1u << 12) | (15u << 1); /* EXCTRCENA, PCSAMPLENA every 16 x 64 cycles */
#elif defined(PERIODIC)
    DWT_CTRL = (1u << 16) | (1u << 10) | 1u; /* EXCTRCENA, SYNCTAP 1 (CYCCNT bit 24), CYCCNTENA */
#else
    DWT_CTRL = 1u << 16; /* EXCTRCENA */
#endif
#ifdef DATA_TRACE
    trace_data();
    /* Spaced out as a program's accesses are: each access's packets leave before the next's. */
    watched = 0x11u;
    pause();
    const uint32_t read = watched;
    pause();
    watched = read + 0x22u;
    pause();
    buffer[1] = 0xBEEFu;
    pause();
    buffer[3] = 0x1234u;
    pause();
    const uint32_t before = DWT_FUNCTION(2) >> 24 & 1u;
    flag = 1u;
    const uint32_t matched = DWT_FUNCTION(2) >> 24 & 1u, cleared = DWT_FUNCTION(2) >> 24 & 1u;
    DWT_FUNCTION(0) = 0u;
    DWT_FUNCTION(1) = 0u;
    watched = 0x99u; /* no longer traced */
    itm_puts(before == 0u && matched == 1u && cleared == 0u ? "dwt: matched once\n" : "dwt: MATCHED wrong\n");
#endif
#ifdef FLOOD
    for (int i = 0; i < 200; ++i) ITM_STIM8(0) = (uint8_t)('a' + i % 26);
#else
    itm_puts("hello from ITM port 0\n");
    while (ITM_STIM32(1) == 0u) {
    }
    ITM_STIM32(1) = 0xC0FFEE42u;
#endif
    SYST_RVR = 5000u;
    SYST_CVR = 0u;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
    while (ticks < 3u) {
    }
#ifdef BENCH_ROUNDS
    uint32_t crc = 0xFFFFFFFFu;
    for (uint32_t round = 0; round < BENCH_ROUNDS; ++round) {
        for (uint32_t i = 0; i < 2000u; ++i) {
            crc ^= i;
            for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
        itm_puts((crc & 1u) ? "round odd\n" : "round even\n");
    }
#endif
    SYST_CSR = 0u;
#ifndef FLOOD
    itm_puts("ticks=3\n");
#endif
    sh_exit(0);
}
