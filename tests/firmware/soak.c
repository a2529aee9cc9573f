/* A device that runs for days: a sensor sampled once per tick of an external timer (IRQ 1),
 * filtered, checked and logged, the core asleep (WFI) in between. bench/soak runs it for 24 hours
 * of emulated time with every analysis on, to show that emutrace's memory stays flat and that a
 * killed run keeps its statistics.
 *
 * The command line gives the number of samples to take (default 60); then exit 0. Each sample:
 * read the sensor's data register, a moving average, a CRC over the filtered history, and every
 * 16th sample a longer "log flush" that sorts a window of the history. User events: marker 1 at
 * each sample's start, 2 at its end (payload: the sample number). */
#include <stdint.h>

#include "cortex_m.h"
#include "print.h"
#include "semihost.h"

#define SENSOR_DATA REG32(0x40010004u)
#define MARKER_PAYLOAD REG32(0x40020000u)
#define MARKER_ID REG32(0x40020004u) /* the write emits the event */
#define HISTORY 64u
#define WINDOW 24u

static volatile uint32_t ticks;
static uint32_t history[HISTORY];
static uint32_t filtered[HISTORY];
static uint32_t window[WINDOW];

void IRQ1_Handler(void) { ticks++; }

static void marker(uint32_t id, uint32_t payload) {
    MARKER_PAYLOAD = payload;
    MARKER_ID = id;
}

__attribute__((noinline)) static uint32_t moving_average(uint32_t at) {
    uint32_t sum = 0;
    for (uint32_t k = 0; k < 8u; k++) sum += history[(at - k) % HISTORY];
    return sum / 8u;
}

__attribute__((noinline)) static uint32_t crc32_words(const uint32_t *words, uint32_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++) {
        crc ^= words[i];
        for (int b = 0; b < 32; b++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

__attribute__((noinline)) static void log_flush(uint32_t at) {
    for (uint32_t i = 0; i < WINDOW; i++) window[i] = filtered[(at - i) % HISTORY];
    for (uint32_t i = 1; i < WINDOW; i++) { /* insertion sort: the median of the window */
        uint32_t v = window[i], j = i;
        for (; j > 0 && window[j - 1] > v; j--) window[j] = window[j - 1];
        window[j] = v;
    }
}

__attribute__((noinline)) static uint32_t process_sample(uint32_t n) {
    uint32_t at = n % HISTORY;
    history[at] = SENSOR_DATA;
    filtered[at] = moving_average(at);
    uint32_t crc = crc32_words(filtered, 16u);
    if ((n & 15u) == 15u) log_flush(at);
    return crc;
}

static uint32_t parse_count(const char *s, uint32_t fallback) {
    uint32_t v = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++) v = v * 10u + (uint32_t)(*s - '0');
    return digits ? v : fallback;
}

int main(void) {
    char cmdline[32] = {0};
    uint32_t samples = sh_get_cmdline(cmdline, sizeof cmdline) == 0 ? parse_count(cmdline, 60u) : 60u;
    nvic_enable_irq(1);
    uint32_t crc = 0, seen = 0;
    for (uint32_t n = 0; n < samples; n++) {
        while (ticks == seen) __asm__ volatile("wfi");
        seen = ticks;
        marker(1, n);
        crc ^= process_sample(n);
        marker(2, n);
    }
    out_str(print_to_semihosting, "soak: samples=");
    out_dec(print_to_semihosting, samples);
    out_str(print_to_semihosting, " crc=");
    out_hex32(print_to_semihosting, crc);
    out_str(print_to_semihosting, "\n");
    return 0;
}
