/* An electronic franking (postage) machine: the demo modelled on the case
 * study in "entry-exit tracing of embedded systems" (the postage system's
 * control unit). Per letter the control unit computes the postage, has it
 * signed by a security device in one synchronous exchange, and builds the
 * print image (frame, date element, indicia), which must be ready before
 * the moving envelope reaches the print head.
 *
 * Threads (firmware/rtos kernel, 1 kHz tick, Cortex-M3 at 48 MHz):
 *   feeder  (low)  posts a batch of LETTERS letters to a queue, one every
 *                  LETTER_PERIOD_MS, at fixed ticks;
 *   franker (high) per letter: LETTER_START, compute_postage,
 *                  security_exchange, SECURITY_DONE, build_print_image,
 *                  IMAGE_READY, trace_event(LETTER_DONE, letter).
 * The envelope sensor is external IRQ 5, raised by the scenario every
 * 20 ms from 12 ms on: ~11.6 ms after each LETTER_START (the kernel starts
 * ~0.39 ms after reset). Its handler emits DEADLINE.
 *
 * Per letter (TRM cycle model, flash with 1 wait state): security
 * exchange 2.5 ms, print image 5.5 ms of which update_date_element
 * 2.6 ms: LETTER_START -> IMAGE_READY ~8.0 ms against a design limit of
 * 11 ms (deadline ~11.6 ms).
 *
 * Builds (scenarios/franking/CMakeLists.txt):
 *   franking         update_date_element re-renders the date for every
 *                    letter: the costly phase of the print image;
 *   franking_cached  -DFRANKING_CACHE_DATE: only when the day changed,
 *                    i.e. for the first letter only (~5.4 ms a letter);
 *   franking_slow    -DFRANKING_EXTRA_DELAY: render_indicia also spends
 *                    EXTRA_DELAY_US on letters franked above
 *                    EXTRA_CODE_CENTS (the three heavy ones: letters 3,
 *                    6 and 8: ~13.0 ms), which then miss their deadline.
 *
 * User events: the marker device (PAYLOAD at +0x0, then the id to +0x4)
 * and, once per letter, the trace_event() hook. */
#include <stdint.h>

#include "cortex_m.h"
#include "kernel.h"
#include "print.h"
#include "semihost.h"

#define CORE_CLOCK_HZ 48000000u
#define CYCLES_PER_US (CORE_CLOCK_HZ / 1000000u)

#define LETTERS 8
#define LETTER_PERIOD_MS 20u
#define ENVELOPE_IRQ 5

/* ---- user events ---- */

/* franking_traced: built with -finstrument-functions and firmware/ontarget, it also records each
 * user event in the tracer's RAM ring, as a board without a probe would (docs/ontarget.md). */
#ifdef EMUTRACE_TRACE
#include "emutrace_trace.h"
#define ONTARGET_EVENT(id, payload) et_event((id), (payload))
#else
#define ONTARGET_EVENT(id, payload) ((void)0)
#endif

#define MARKER_BASE 0x40020000u
#define MARKER_PAYLOAD REG32(MARKER_BASE + 0x0u)
#define MARKER_ID REG32(MARKER_BASE + 0x4u) /* the write emits the event */

enum {
    EV_LETTER_START = 1,   /* payload: letter number (1-based) */
    EV_IMAGE_READY = 2,    /* payload: letter number */
    EV_DEADLINE = 3,       /* payload: envelope number, from the IRQ */
    EV_SECURITY_DONE = 4,  /* payload: letter number */
    EV_LETTER_DONE = 5,    /* through trace_event(), not the marker */
};

/* Thread code: the two stores must not be split by the envelope IRQ,
 * whose own event would take the PAYLOAD register in between. */
static void marker_emit(uint32_t id, uint32_t payload)
{
    uint32_t primask = __get_PRIMASK();
    __disable_irq();
    MARKER_PAYLOAD = payload;
    MARKER_ID = id;
    ONTARGET_EVENT(id, payload);
    __set_PRIMASK(primask);
}

/* The hook emutrace turns into a user event from its arguments (r0, r1).
 * noipa: no inlining, no clones, the arguments stay as they are. */
__attribute__((noipa, used)) void trace_event(uint32_t id, uint32_t payload)
{
    __asm__ volatile("" ::"r"(id), "r"(payload));
    ONTARGET_EVENT(id, payload);
}

/* The functions the call tracer reports by name. */
#define TRACED __attribute__((noinline, noclone))

/* ---- envelope sensor: the deadline ---- */

static volatile uint32_t envelopes;

void IRQ5_Handler(void)
{
    uint32_t n = ++envelopes;
    MARKER_PAYLOAD = n;
    MARKER_ID = EV_DEADLINE;
    ONTARGET_EVENT(EV_DEADLINE, n);
}

/* ---- postage ---- */

struct band {
    uint16_t max_grams;
    uint16_t cents;
};

static const struct band rate_table[] = {
    {20, 85}, {50, 100}, {100, 160}, {250, 195}, {500, 275}, {1000, 370},
};
#define RATE_BANDS (sizeof rate_table / sizeof rate_table[0])

/* Weights of the batch, in grams. Three are over 250 g. */
static const uint16_t batch_weights[LETTERS] = {18, 45, 260, 95, 20, 480, 75, 990};

/* Cents: the band's rate, 1 cent per started 10 g over the band's lower
 * limit, and a 0.7% handling fee rounded half up. */
TRACED uint32_t compute_postage(uint32_t grams)
{
    uint32_t i = 0;
    while (i + 1 < RATE_BANDS && grams > rate_table[i].max_grams)
        i++;
    uint32_t lower = i ? rate_table[i - 1].max_grams : 0;
    uint32_t cents = rate_table[i].cents + (grams - lower + 9u) / 10u;
    return (cents * 1007u + 500u) / 1000u;
}

/* ---- security device: one synchronous exchange per letter ---- */

#define SEC_BASE 0x40021000u
#define SEC_CMD REG32(SEC_BASE + 0x00u)       /* write: start signing */
#define SEC_STATUS REG32(SEC_BASE + 0x04u)    /* bit 0: signature ready */
#define SEC_SIGNATURE REG32(SEC_BASE + 0x08u)
#define SEC_ACK REG32(SEC_BASE + 0x0Cu)       /* write: clears STATUS */
#define SEC_STATUS_READY 1u

TRACED uint32_t security_exchange(uint32_t letter)
{
    SEC_CMD = letter;
    while (!(SEC_STATUS & SEC_STATUS_READY))
        ;
    uint32_t signature = SEC_SIGNATURE;
    SEC_ACK = 1;
    return signature;
}

/* ---- print image: 1 bit per dot, IMG_W x IMG_H ---- */

#define IMG_W 256
#define IMG_H 96
#define IMG_WORDS_PER_ROW (IMG_W / 32)

static uint32_t image[IMG_H][IMG_WORDS_PER_ROW];

static inline void put_dot(unsigned x, unsigned y, unsigned on)
{
    uint32_t bit = 1u << (x & 31u);
    if (on)
        image[y][x >> 5] |= bit;
    else
        image[y][x >> 5] &= ~bit;
}

/* 5x7 glyphs, one byte per row, bit 4 = leftmost column. */
static const uint8_t font[12][7] = {
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, /* 0 */
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* 1 */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, /* 2 */
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}, /* 3 */
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, /* 4 */
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}, /* 5 */
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, /* 6 */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}, /* 7 */
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, /* 8 */
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}, /* 9 */
    {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}, /* - */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}, /* . */
};
#define GLYPH_DASH 10
#define GLYPH_DOT 11

/* The static part: blank image, double border, the postal emblem. */
TRACED void render_frame(void)
{
    for (unsigned y = 0; y < IMG_H; y++)
        for (unsigned w = 0; w < IMG_WORDS_PER_ROW; w++)
            image[y][w] = 0;
    for (unsigned x = 0; x < IMG_W; x++) {
        put_dot(x, 0, 1);
        put_dot(x, 3, 1);
        put_dot(x, IMG_H - 4, 1);
        put_dot(x, IMG_H - 1, 1);
    }
    for (unsigned y = 0; y < IMG_H; y++) {
        put_dot(0, y, 1);
        put_dot(3, y, 1);
        put_dot(IMG_W - 4, y, 1);
        put_dot(IMG_W - 1, y, 1);
    }
    /* Emblem: concentric rings of a 40x40 disc at the right. */
    for (int y = -20; y < 20; y++)
        for (int x = -20; x < 20; x++) {
            int r2 = x * x + y * y;
            put_dot((unsigned)(204 + x), (unsigned)(48 + y), r2 < 400 && (r2 >> 5) % 2 == 0);
        }
}

/* ---- date element ---- */

/* The real-time clock: the batch runs on 2024-03-14 (day 19796 since
 * 1970-01-01), far from midnight. */
#define RTC_BASE_DAY 19796u
#define RTC_BASE_MS (10u * 3600u * 1000u)
#define MS_PER_DAY (24u * 3600u * 1000u)

static uint32_t rtc_day(void)
{
    return RTC_BASE_DAY + (RTC_BASE_MS + kernel_ticks()) / MS_PER_DAY;
}

/* Days since 1970-01-01 to "YYYY-MM-DD" as glyph indices (H. Hinnant's
 * civil_from_days, for days >= 0). */
static void date_glyphs(uint32_t days, uint8_t g[10])
{
    uint32_t z = days + 719468u;
    uint32_t era = z / 146097u;
    uint32_t doe = z - era * 146097u;
    uint32_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
    uint32_t y = yoe + era * 400u;
    uint32_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u);
    uint32_t mp = (5u * doy + 2u) / 153u;
    uint32_t d = doy - (153u * mp + 2u) / 5u + 1u;
    uint32_t m = mp < 10u ? mp + 3u : mp - 9u;
    if (m <= 2u)
        y++;
    g[0] = (uint8_t)(y / 1000u % 10u);
    g[1] = (uint8_t)(y / 100u % 10u);
    g[2] = (uint8_t)(y / 10u % 10u);
    g[3] = (uint8_t)(y % 10u);
    g[4] = GLYPH_DASH;
    g[5] = (uint8_t)(m / 10u);
    g[6] = (uint8_t)(m % 10u);
    g[7] = GLYPH_DASH;
    g[8] = (uint8_t)(d / 10u);
    g[9] = (uint8_t)(d % 10u);
}

/* The date element: 10 glyphs scaled DATE_SCALE times, at the left. The
 * costly phase: every dot of the element is recomputed from the glyphs,
 * with a division chain per dot. */
#define DATE_X 10u
#define DATE_Y 12u
#define DATE_SCALE 2u
#define DATE_CELL (6u * DATE_SCALE) /* 5 columns + 1 space */
#define DATE_W (10u * DATE_CELL)
#define DATE_H (8u * DATE_SCALE)

#ifdef FRANKING_CACHE_DATE
static uint32_t rendered_day; /* 0: never rendered */
#endif

TRACED void update_date_element(void)
{
    uint32_t day = rtc_day();
#ifdef FRANKING_CACHE_DATE
    /* The frame is redrawn for every letter but leaves the date area
     * alone, so the rendered dots stay valid until the day changes. */
    if (day == rendered_day)
        return;
    rendered_day = day;
#endif
    uint8_t g[10];
    date_glyphs(day, g);
    for (unsigned y = 0; y < DATE_H; y++) {
        for (unsigned x = 0; x < DATE_W; x++) {
            unsigned cell = x / DATE_CELL;
            unsigned col = (x % DATE_CELL) / DATE_SCALE;
            unsigned row = y / DATE_SCALE;
            unsigned on = col < 5u && row < 7u && (font[g[cell]][row] >> (4u - col)) & 1u;
            put_dot(DATE_X + x, DATE_Y + y, on);
        }
    }
}

/* ---- indicia: postage value and signature code ---- */

#define VALUE_X 10u
#define VALUE_Y 48u
#define VALUE_SCALE 2u
#define CODE_X 130u
#define CODE_Y 44u
#define CODE_MODULE 3u /* dots per code module */

#ifdef FRANKING_EXTRA_DELAY
/* Postage above 2.50 (letters over 250 g) gets an extra code whose
 * rendering takes this long: it makes those letters miss the print head. */
#define EXTRA_CODE_CENTS 250u
#define EXTRA_DELAY_US 5000u
#endif

static void draw_glyph(unsigned x0, unsigned y0, unsigned glyph, unsigned scale)
{
    for (unsigned row = 0; row < 7u; row++)
        for (unsigned col = 0; col < 5u; col++) {
            unsigned on = (font[glyph][row] >> (4u - col)) & 1u;
            for (unsigned dy = 0; dy < scale; dy++)
                for (unsigned dx = 0; dx < scale; dx++)
                    put_dot(x0 + col * scale + dx, y0 + row * scale + dy, on);
        }
}

static void busy_delay_cycles(uint32_t cycles)
{
    uint32_t t0 = DWT_CYCCNT;
    while (DWT_CYCCNT - t0 < cycles)
        ;
}

/* The postage as "dd.cc" and a 12x12-module code of the signature (each
 * module from a bit of a scrambled signature word). */
TRACED void render_indicia(uint32_t postage, uint32_t signature)
{
    uint8_t g[5] = {
        (uint8_t)(postage / 1000u % 10u), (uint8_t)(postage / 100u % 10u), GLYPH_DOT,
        (uint8_t)(postage / 10u % 10u), (uint8_t)(postage % 10u),
    };
    for (unsigned i = 0; i < 5u; i++)
        draw_glyph(VALUE_X + i * 6u * VALUE_SCALE, VALUE_Y, g[i], VALUE_SCALE);

    uint32_t s = signature;
    for (unsigned my = 0; my < 12u; my++)
        for (unsigned mx = 0; mx < 12u; mx++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            unsigned on = s & 1u;
            for (unsigned dy = 0; dy < CODE_MODULE; dy++)
                for (unsigned dx = 0; dx < CODE_MODULE; dx++)
                    put_dot(CODE_X + mx * CODE_MODULE + dx, CODE_Y + my * CODE_MODULE + dy, on);
        }
#ifdef FRANKING_EXTRA_DELAY
    if (postage > EXTRA_CODE_CENTS)
        busy_delay_cycles(EXTRA_DELAY_US * CYCLES_PER_US);
#else
    (void)busy_delay_cycles;
#endif
}

/* letter first: the call tracer sees it in r0. */
TRACED void build_print_image(uint32_t letter, uint32_t postage, uint32_t signature)
{
    (void)letter;
    render_frame();
    update_date_element();
    render_indicia(postage, signature);
}

/* ---- threads ---- */

static uint32_t letter_storage[LETTERS];
static struct queue letters;

static void feeder(void *arg)
{
    (void)arg;
    uint32_t due = 0;
    for (uint32_t i = 0; i < LETTERS; i++) {
        /* Letter i+1 at tick i * LETTER_PERIOD_MS, whatever the franker
         * took: the envelopes move at a fixed pace. */
        uint32_t now = kernel_ticks();
        if (due > now)
            task_sleep(due - now);
        queue_send(&letters, batch_weights[i]);
        due += LETTER_PERIOD_MS;
    }
    block_forever();
}

static void franker(void *arg)
{
    (void)arg;
    uint32_t postage = 0, signature = 0;
    for (uint32_t letter = 1; letter <= LETTERS; letter++) {
        uint32_t grams = queue_receive(&letters);
        marker_emit(EV_LETTER_START, letter);
        postage = compute_postage(grams);
        signature = security_exchange(letter);
        marker_emit(EV_SECURITY_DONE, letter);
        build_print_image(letter, postage, signature);
        marker_emit(EV_IMAGE_READY, letter);
        trace_event(EV_LETTER_DONE, letter);
    }
    /* Let the last envelope pass the print head before stopping. */
    while (envelopes < LETTERS)
        task_sleep(1);

    char line[96];
    char *p = fmt_str(line, "franking: ");
    p = fmt_dec(p, LETTERS);
    p = fmt_str(p, " letters, last postage ");
    p = fmt_hex32(p, postage);
    p = fmt_str(p, ", last signature ");
    p = fmt_hex32(p, signature);
    fmt_str(p, "\n");
    sh_write0(line);
    sh_exit(0);
}

static void idle(void *arg)
{
    (void)arg;
    for (;;)
        __WFI();
}

int main(void)
{
#ifdef EMUTRACE_TRACE
    et_init((void *const volatile *)&current_tcb);
#endif
    dwt_cyccnt_start();
    queue_init(&letters, letter_storage, LETTERS);
    /* The envelope sensor keeps the default priority 0: above the
     * kernel's critical sections, so the deadline is never delayed. */
    nvic_enable_irq(ENVELOPE_IRQ);
    task_create(idle, "idle", 0, 0);
    task_create(feeder, "feeder", 1, 0);
    task_create(franker, "franker", 2, 0);
    kernel_start(CORE_CLOCK_HZ);
}
