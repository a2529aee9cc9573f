// Unmodified libopencm3 firmware on the STM32F1 board preset (issue 58): libopencm3's
// STM32VL-Discovery examples (tests/data/libopencm3-examples, built against tests/data/libopencm3)
// and three interrupt-driven programs of ours on the same library (tests/firmware/libopencm3), each
// run as a user runs it,
//     emutrace run build/firmware/ocm3_<name>.elf -s scenarios/boards/stm32f100.yaml
//         --max-instructions N [--events FILE]
// and held to what the real board (STM32F100RB, 8 MHz HSE crystal, LEDs on PC8/PC9, the user button
// on PA0 with its pull-down) prints on its USARTs and does with its pins. The expectations come from
// the firmware's sources and the STM32F100 reference manual (RM0041), not from the emulator.
//
// Given (the peripheral models are developed against these): usart, miniblink, button,
// usart_irq_tx, and the register naming and no-unclaimed-MMIO checks on usart.
// Validation (held aside from the models' development; they judge them): fancyblink, spi, rtc,
// adc-dac-printf, timer_irq, exti_swier.
//
// The USARTs' transmitted bytes are the firmware's output: they reach stdout unchanged ("\r\n" as
// sent) and are "output" events in the event log.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;

namespace {

constexpr double kClockHz = 24e6;  // the preset's clock, and each firmware's after rcc_clock_setup_pll

// GPIOC (the LEDs: PC8 blue, PC9 green) and GPIOA registers, RM0041 section 7.2.
constexpr std::uint32_t kGpioaIdr = 0x40010808;
constexpr std::uint32_t kGpiocOdr = 0x4001100c;
constexpr std::uint32_t kGpiocBsrr = 0x40011010;
constexpr std::uint32_t kGpiocBrr = 0x40011014;

// The peripherals' address range on the STM32F100 (TIM2 at 0x40000000 to the CRC unit's end).
constexpr std::uint32_t kPeripheralsBegin = 0x40000000;
constexpr std::uint32_t kPeripheralsEnd = 0x40023400;

std::string board() {
    return source("scenarios/boards/stm32f100.yaml");
}

// `extra`: more options, as the shell reads them ("--set 'stimuli=[...]'").
Cli run(const std::string& name, const std::string& max_instructions, const std::string& events = "", const std::string& stop_at = "",
        const std::string& extra = "") {
    std::string args = "run " + firmware("ocm3_" + name) + " -s " + board() + " --max-instructions " + max_instructions;
    if (!events.empty()) args += " --events " + events;
    if (!stop_at.empty()) args += " --stop-at " + stop_at;
    if (!extra.empty()) args += " " + extra;
    return emutrace_cli(args);
}

// "peripherals[N]" of the preset's device `name`, for --set (the entries are one a line).
std::string preset_device(const std::string& name) {
    std::ifstream in(board());
    int index = -1;
    bool in_list = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("peripherals:", 0) == 0) in_list = true;
        if (!in_list || line.rfind("  - {name: ", 0) != 0) continue;
        ++index;
        if (line.compare(11, name.size() + 1, name + ",") == 0) return "peripherals[" + std::to_string(index) + "]";
    }
    FAIL("no peripheral " << name << " in " << board());
    return {};
}

struct Mmio {
    std::uint64_t cycle = 0;
    bool write = false;
    std::uint32_t address = 0, value = 0;
    std::string reg;  // the event's "register" ("GPIOC.BSRR"), empty when it has none
    bool has_register = false;
};

struct Output {
    std::uint64_t cycle = 0;
    std::string text;
    std::string from;  ///< the device: "usart1", "itm"
};

struct Events {
    std::vector<Mmio> mmio;
    std::vector<Output> output;
};

std::uint32_t hex(const json& v) {
    return v.is_string() ? static_cast<std::uint32_t>(std::stoul(v.get<std::string>(), nullptr, 16)) : v.get<std::uint32_t>();
}

// The MMIO and output events of a log, read a line at a time (a blinker's log is hundreds of MB of
// block events, which are skipped unparsed).
Events read_events(const std::string& path) {
    Events ev;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        bool mmio = line.find("\"kind\":\"mmio_") != std::string::npos;
        bool output = line.find("\"kind\":\"output\"") != std::string::npos;
        if (!mmio && !output) continue;
        json e = json::parse(line, nullptr, false);
        if (e.is_discarded()) continue;
        const std::string kind = e.value("kind", "");
        if (kind == "mmio_read" || kind == "mmio_write") {
            Mmio m;
            m.cycle = e.value("cycle", std::uint64_t{0});
            m.write = kind == "mmio_write";
            m.address = hex(e["address"]);
            m.value = e.contains("value") ? hex(e["value"]) : 0;
            m.has_register = e.contains("register");
            if (m.has_register && e["register"].is_string()) m.reg = e["register"].get<std::string>();
            ev.mmio.push_back(m);
        } else if (kind == "output") {
            ev.output.push_back({e.value("cycle", std::uint64_t{0}), e.value("text", ""), e.value("from", "")});
        }
    }
    return ev;
}

std::vector<Mmio> writes_to(const Events& ev, std::uint32_t address) {
    std::vector<Mmio> out;
    for (const Mmio& m : ev.mmio)
        if (m.write && m.address == address) out.push_back(m);
    return out;
}

// The GPIOC writes that change the LED pins: libopencm3's gpio_toggle reads ODR and writes BSRR with
// the pins that are set in its reset half and the others in its set half; gpio_set writes BSRR.
std::vector<Mmio> gpioc_pin_writes(const Events& ev) {
    std::vector<Mmio> out;
    for (const Mmio& m : ev.mmio)
        if (m.write && (m.address == kGpiocBsrr || m.address == kGpiocBrr || m.address == kGpiocOdr)) out.push_back(m);
    return out;
}

// Every GPIOC event names its register once the models name SVD registers ("GPIOC.BSRR").
void check_gpioc_named(const std::vector<Mmio>& writes) {
    for (const Mmio& m : writes) {
        CAPTURE(m.address);
        CHECK(m.has_register);
        CHECK(m.reg.rfind("GPIOC.", 0) == 0);
    }
}

// Between two toggles a blinker spins `iterations` times in its delay loop (nop; subs; bne at -Os):
// 3 instructions and, on the Cortex-M3 from zero-wait-state flash, 3 to 6 cycles an iteration.
void check_spacing(const std::vector<Mmio>& toggles, double iterations) {
    REQUIRE(toggles.size() >= 3);
    std::vector<double> gaps;
    for (std::size_t i = 1; i < toggles.size(); ++i) gaps.push_back(double(toggles[i].cycle - toggles[i - 1].cycle));
    for (double gap : gaps) {
        CAPTURE(gap);
        CHECK(gap >= 3 * iterations);
        CHECK(gap <= 6 * iterations);
    }
    // The same loop each time: the toggles are evenly spaced.
    for (std::size_t i = 1; i < gaps.size(); ++i) CHECK(gaps[i] == doctest::Approx(gaps[0]).epsilon(0.01));
}

// GPIOC's BSRR writes from the `first`-th on: alternately `even` and `odd`, a delay loop of
// `iterations` rounds apart, each named as the SVD names the register.
void check_blink(const std::vector<Mmio>& writes, std::size_t first, std::uint32_t even, std::uint32_t odd, double iterations) {
    REQUIRE(writes.size() >= first + 3);
    std::vector<Mmio> toggles(writes.begin() + static_cast<std::ptrdiff_t>(first), writes.end());
    for (std::size_t i = 0; i < toggles.size(); ++i) {
        CAPTURE(i);
        CHECK(toggles[i].address == kGpiocBsrr);
        CHECK(toggles[i].value == (i % 2 == 0 ? even : odd));
    }
    check_spacing(toggles, iterations);
    check_gpioc_named(writes);
}

std::string all_output(const Events& ev) {
    std::string text;
    for (const Output& o : ev.output) text += o.text;
    return text;
}

// The cycle of the output event that carries the first byte of `what` (an output event may carry
// one byte or a line; the first byte's event is when the firmware began sending it).
std::uint64_t output_cycle(const Events& ev, const std::string& what) {
    const std::string text = all_output(ev);
    const std::size_t at = text.find(what);
    std::size_t begin = 0;
    for (const Output& o : ev.output) {
        if (at != std::string::npos && at >= begin && at < begin + o.text.size()) return o.cycle;
        begin += o.text.size();
    }
    FAIL("no output event carries \"" << what << "\"");
    return 0;
}

// Our programs idle in done() once they have printed (and the USART has sent the last byte, TC):
// the run stops there (--stop-at done, exit status 0); the instruction limit only guards a run that
// never gets there.
const char* const kDone = "done";

}  // namespace

// ---- given ----

TEST_CASE("libopencm3: usart (given): USART1 sends 0123456789 round and round, a newline after the first byte and every 80") {
    // usart.c: 24 MHz from HSE through the PLL, USART1 115200 8N1; each round toggles PC9, sends
    // c + '0' (c = 0..9 repeating), then "\r\n" when j++ % 80 == 0 (j = 0 first: after the first
    // byte), then spins 800,000 times (2.4 M instructions). 50 M instructions: 20 rounds and more.
    Cli r = run("usart", "50e6");
    CHECK(r.status == 3);
    CAPTURE(r.err.substr(0, 2000));
    REQUIRE(r.out.size() >= 20);
    CHECK(r.out.substr(0, 20) == "0\r\n12345678901234567");
    // Nothing but the digits and the one newline so far.
    CHECK(r.out.find_first_not_of("0123456789", 3) == std::string::npos);
}

TEST_CASE("libopencm3: usart (given): no MMIO access of the run is unclaimed") {
    // Every register the example and libopencm3 touch (RCC, FLASH, GPIOA/C, USART1) has a model.
    Cli r = run("usart", "5e6");
    CHECK(r.status == 3);
    CHECK(r.err.find("unclaimed MMIO") == std::string::npos);
    CHECK(r.err.find("unclaimed") == std::string::npos);
}

TEST_CASE("libopencm3: usart (given): every peripheral access in the event log names its SVD register") {
    TempDir dir;
    Cli r = run("usart", "3e6", dir.file("e.jsonl"));
    CHECK(r.status == 3);
    const Events ev = read_events(dir.file("e.jsonl"));
    std::size_t in_range = 0;
    std::vector<std::string> names;
    for (const Mmio& m : ev.mmio) {
        if (m.address < kPeripheralsBegin || m.address >= kPeripheralsEnd) continue;
        ++in_range;
        CAPTURE(m.address);
        CHECK(m.has_register);
        CHECK(!m.reg.empty());
        names.push_back(m.reg);
    }
    // The clock set-up, the pins and the USART: RCC's CR (HSEON, PLLON, their RDY flags) and CFGR,
    // FLASH's ACR (the wait states), GPIOA's CRH (PA9) and GPIOC's CRH (PC9), USART1's BRR, CR1, SR
    // and DR, GPIOC's ODR and BSRR (the toggle).
    CHECK(in_range > 0);
    auto named = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
    for (const char* n : {"RCC.CR", "RCC.CFGR", "RCC.APB2ENR", "FLASH.ACR", "GPIOA.CRH", "GPIOC.CRH", "USART1.BRR", "USART1.CR1", "USART1.SR",
                          "USART1.DR", "GPIOC.ODR", "GPIOC.BSRR"}) {
        CAPTURE(n);
        CHECK(named(n));
    }
}

TEST_CASE("libopencm3: miniblink (given): PC8 toggles through GPIOC_BSRR every 800,000 delay-loop rounds") {
    // miniblink.c: no clock set-up (HSI); gpio_toggle(GPIOC, GPIO8) then 800,000 nops, forever.
    // gpio_toggle reads ODR and writes BSRR: 0x00000100 (set PC8) when PC8 is low, 0x01000000
    // (reset PC8) when it is high; PC8 starts low (ODR resets to 0). 7 M instructions: 3 toggles.
    TempDir dir;
    Cli r = run("miniblink", "7e6", dir.file("e.jsonl"));
    CHECK(r.status == 3);
    const Events ev = read_events(dir.file("e.jsonl"));
    const std::vector<Mmio> toggles = gpioc_pin_writes(ev);
    check_blink(toggles, 0, 0x00000100u, 0x01000000u, 800000);
    // Each toggle read ODR first.
    std::size_t odr_reads = 0;
    for (const Mmio& m : ev.mmio)
        if (!m.write && m.address == kGpiocOdr) ++odr_reads;
    CHECK(odr_reads >= toggles.size());
}

TEST_CASE("libopencm3: button (given): PC9 blinks at the fast rate while the user button (PA0) is not pressed") {
    // button.c: 24 MHz from HSE; PC9 output, PA0 floating input (the board pulls it down: 0 until
    // B1 is pressed). Each round: toggle PC9, read GPIOA_IDR, one delay of 800,000 rounds (two
    // when PA0 reads 1). BSRR: 0x00000200, 0x02000000, ...
    TempDir dir;
    Cli r = run("button", "7e6", dir.file("e.jsonl"));
    CHECK(r.status == 3);
    const Events ev = read_events(dir.file("e.jsonl"));
    const std::vector<Mmio> toggles = gpioc_pin_writes(ev);
    check_blink(toggles, 0, 0x00000200u, 0x02000000u, 800000);
    // The button is read once a round and reads released.
    std::size_t idr_reads = 0;
    for (const Mmio& m : ev.mmio) {
        if (m.write || m.address != kGpioaIdr) continue;
        ++idr_reads;
        CHECK((m.value & 1) == 0);
    }
    CHECK(idr_reads >= toggles.size() - 1);
}

TEST_CASE("libopencm3: usart_irq_tx (given): USART1's TXE interrupt sends the whole text, once") {
    // usart_irq_tx.c: usart1_isr writes the next byte at each TXE and turns TXEIE off after the
    // last; at 115200 baud the 15 bytes take 1.3 ms (31,000 cycles).
    TempDir dir;
    Cli r = run("usart_irq_tx", "2e6", dir.file("e.jsonl"), kDone);
    CHECK(r.status == 0);
    CHECK(r.out == "irq tx: hello\r\n");
    const Events ev = read_events(dir.file("e.jsonl"));
    CHECK(all_output(ev) == "irq tx: hello\r\n");
    // Bytes leave no faster than the line rate: BRR 208 (24 MHz / 115200, rounded) is 208 cycles a
    // bit, 2,080 a 10-bit frame. The first two bytes go back to back (the shift register and the
    // data register), each later one a frame after the one before.
    if (ev.output.size() >= 3 && ev.output.front().text.size() == 1) {
        const double span = double(ev.output.back().cycle - ev.output.front().cycle);
        CHECK(span >= 0.95 * double(ev.output.size() - 2) * 2080);
    }
}

TEST_CASE("libopencm3: dma_copy_tx: a memory-to-memory copy, then a text through USART1's DMA channel at the line rate") {
    // dma_copy_tx.c (written after the DMA model, so not a held-out check): DMA1 channel 1 copies a
    // table (MEM2MEM), channel 4 feeds USART1's DR under CR3.DMAT and interrupts at its end.
    TempDir dir;
    Cli r = run("dma_copy_tx", "2e6", dir.file("e.jsonl"), kDone);
    CHECK(r.status == 0);
    CHECK(r.out == "copy ok\r\nsent by dma\r\ndma irq=1\r\n");
    const Events ev = read_events(dir.file("e.jsonl"));
    // The DMA'd text leaves a frame (2,080 cycles) a byte, as TXE paces the channel, not at once.
    std::vector<std::uint64_t> cycles;
    std::string text;
    for (const auto& o : ev.output) {
        text += o.text;
        if (text.size() > 9 && text.size() <= 9 + 13) cycles.push_back(o.cycle);
    }
    REQUIRE(cycles.size() == 13);
    CHECK(double(cycles.back() - cycles.front()) >= 0.95 * 11 * 2080);
}

TEST_CASE("libopencm3: adc_timer_dma: a polled conversion, injected ones on TIM2's TRGO with their interrupt, a scan through DMA") {
    // adc_timer_dma.c (written with the ADC model, so not a held-out check): the preset's ADC1
    // reads its default inputs (temperature sensor 1775, VREFINT 1489). TIM2's update is its TRGO
    // at 1 kHz: 20 injected conversions, each a JEOC interrupt, take 20 ms of TIM3's count; JOFR1
    // (89) is taken off JDR1; the regular scan's four results reach memory one DMA request each.
    Cli r = run("adc_timer_dma", "5e6", "", kDone);
    CHECK(r.status == 0);
    CHECK(r.out == "temp=1775\r\njeoc=20 vref=1400 ms=20\r\ndma=1775,1489,1775,1489\r\n");
    // What a channel reads is the scenario's.
    Cli set = run("adc_timer_dma", "5e6", "", kDone, "--set '" + preset_device("ADC1") + ".params.inputs={16: 1000, 17: 2000}'");
    CHECK(set.status == 0);
    CHECK(set.out == "temp=1000\r\njeoc=20 vref=1911 ms=20\r\ndma=1000,2000,1000,2000\r\n");
    Cli bad = run("adc_timer_dma", "1", "", "", "--set '" + preset_device("ADC1") + ".params.inputs={18: 1}'");
    CHECK(bad.status == 2);
    CHECK(bad.err.find("ADC input 18: the channels are 0 to 17") != std::string::npos);
}

TEST_CASE("libopencm3: usart_dma_echo: a TX channel enabled before DMAT waits for the USART's requests, an RX channel takes the received bytes") {
    // usart_dma_echo.c (written with the request lines, so not a held-out check): DMA1 channel 4
    // is enabled with "abcdefg\r\n" before CR3.DMAT; channel 5 then takes six bytes the stimulus
    // sends, printed back after "got=".
    TempDir dir;
    Cli r = run("usart_dma_echo", "5e6", dir.file("e.jsonl"), kDone, "--set 'stimuli=[{at: 3ms, uart_rx: {device: USART1, data: bcdefgh}}]'");
    CHECK(r.status == 0);
    CHECK(r.out == "abcdefg\r\ngot=bcdefg\r\n");
    // The DMA'd text leaves a frame (2,080 cycles at 115200 baud) a byte, as TXE paces the channel.
    const Events ev = read_events(dir.file("e.jsonl"));
    REQUIRE(ev.output.size() >= 9);
    CHECK(double(ev.output[8].cycle - ev.output[0].cycle) >= 0.95 * 8 * 2080);
}

TEST_CASE("libopencm3: i2c_target: writes and reads of a scenario's I2C target at 100 kHz, the two-byte POS read, a NACKed address") {
    // i2c_target.c (written with the I2C model, so not a held-out check): I2C1 with a target at
    // 0x48 whose bytes 0-1 are 0x19 0x80 (a temperature sensor's reading): register 3 written and
    // read back through i2c_transfer7, register 0 read by the POS sequence, 0x50 answered by nobody.
    TempDir dir;
    const std::string target = "--set '" + preset_device("I2C1") + ".params.targets=[{address: 0x48, memory: {0: [0x19, 0x80]}}]'";
    Cli r = run("i2c_target", "5e6", dir.file("e.jsonl"), kDone, target);
    CHECK(r.status == 0);
    CHECK(r.out == "temp=0x1980 os=0x1a00 nack=1\r\n");
    // A byte is nine SCL periods: 90 us at 100 kHz. The first transfer's address byte (DR written
    // with 0x90) to its data byte's write are one byte apart at least.
    const Events ev = read_events(dir.file("e.jsonl"));
    std::vector<std::uint64_t> dr_writes;
    for (const auto& m : ev.mmio)
        if (m.write && m.reg == "I2C1.DR") dr_writes.push_back(m.cycle);
    REQUIRE(dr_writes.size() >= 2);
    CHECK(double(dr_writes[1] - dr_writes[0]) >= 0.95 * 90e-6 * kClockHz);
    // With no target the address is not acknowledged and the firmware waits for ADDR, as on a
    // board with nothing on the bus.
    Cli none = run("i2c_target", "2e6", "", kDone);
    CHECK(none.status == 3);
    CHECK(none.out.empty());
    Cli bad = run("i2c_target", "1", "", "", "--set '" + preset_device("I2C1") + ".params.targets=[{address: 0x80}]'");
    CHECK(bad.status == 2);
    CHECK(bad.err.find("7-bit address is at most 0x7f") != std::string::npos);
}

TEST_CASE("libopencm3: the Perfetto trace has a track per device with its register accesses, and the report a table of them, named by the SVD") {
    // adc_timer_dma.c reads JDR1 in each of its 20 JEOC interrupts and polls USART1.SR per byte.
    TempDir dir;
    Cli r = run("adc_timer_dma", "5e6", "", kDone, "--perfetto " + dir.file("p.json"));
    REQUIRE(r.status == 0);
    std::ifstream in(dir.file("p.json"));
    const json trace = json::parse(in);
    std::map<std::uint64_t, std::string> tracks;
    std::map<std::string, int> accesses;
    std::set<std::uint64_t> access_tracks;
    for (const auto& e : trace["traceEvents"]) {
        if (e.value("name", "") == "thread_name") tracks[e["tid"].get<std::uint64_t>()] = e["args"]["name"].get<std::string>();
        if (e.value("cat", "") != "mmio") continue;
        ++accesses[e["name"].get<std::string>()];
        access_tracks.insert(e["tid"].get<std::uint64_t>());
        CHECK(e["args"]["value"].get<std::string>().rfind("0x", 0) == 0);
    }
    CHECK(accesses["ADC1.JDR1 read"] == 20);
    CHECK(accesses["TIM2.CR2 write"] >= 1);
    CHECK(accesses["USART1.DR write"] == int(std::string("temp=1775\r\njeoc=20 vref=1400 ms=20\r\ndma=1775,1489,1775,1489\r\n").size()));
    for (std::uint64_t tid : access_tracks) {
        REQUIRE(tracks.count(tid));
        CHECK(tracks[tid].rfind("MMIO ", 0) == 0);
    }
    CHECK(trace["otherData"]["dropped_mmio_accesses"] == 0);
    // The HTML report's table counts them per register.
    Cli page = run("adc_timer_dma", "5e6", "", kDone, "--report " + dir.file("r.html"));
    REQUIRE(page.status == 0);
    const std::string html = read_file(dir.file("r.html"));
    const auto at = html.find("id=\"registers\"");
    REQUIRE(at != std::string::npos);
    const std::regex row(R"(<td>ADC1\.JDR1</td><td class="num">20</td><td class="num">0</td>)");
    CHECK(std::regex_search(html.substr(at), row));
}

TEST_CASE("libopencm3: flash_store: a page erased and half-words programmed through libopencm3's flash routines, PGERR, the lock") {
    // flash_store.c (written with the flash controller, so not a held-out check): the last page of
    // the 128 KiB flash, erased (20 ms, tERASE) and programmed; a second program of a written
    // half-word is refused with PGERR; CR is read-only once locked.
    Cli r = run("flash_store", "5e6", "", kDone);
    CHECK(r.status == 0);
    CHECK(r.out == "page=ffff words=1234,abcd,0,5a5a pgerr=1 kept=1234 locked=1 erase_ms=20\r\n");
}

TEST_CASE("libopencm3: pwm_exti: a timer's PWM output on its alternate-function pin, looped into EXTI and timed") {
    // pwm_exti.c (written with the timer's outputs, so not a held-out check): TIM3 channel 1 at
    // 1 kHz, 25% duty, on PA6; each edge interrupts through EXTI line 6 and is stamped by TIM2 at
    // 1 MHz; after the force to inactive PA6 reads 0.
    Cli r = run("pwm_exti", "5e6", "", kDone);
    CHECK(r.status == 0);
    CHECK(r.out == "rising=10 high_us=250 period_us=1000 pin=0\r\n");
}

TEST_CASE("libopencm3: exti_button: a pin's rising edges, routed by AFIO_EXTICR1, interrupt through EXTI0") {
    // exti_button.c (written after the EXTI wiring, so not a held-out check): PA0's rising edges
    // count; the stimuli press, release and press again on the board preset, nothing else added.
    const std::string press = "{device: GPIOA, register: IDR.IDR0, value: 1}", release = "{device: GPIOA, register: IDR.IDR0, value: 0}";
    Cli r = emutrace_cli("run " + firmware("ocm3_exti_button") + " -s " + board() +
                         " --max-instructions 2e6 --stop-at done --set 'stimuli=[{at: 1ms, set: " + press + "}, {at: 2ms, set: " + release +
                         "}, {at: 3ms, set: " + press + "}]'");
    CHECK(r.status == 0);
    CHECK(r.out == "presses=2\r\n");
    // Without the second press the firmware never prints: the falling edge did not count.
    Cli one = emutrace_cli("run " + firmware("ocm3_exti_button") + " -s " + board() +
                           " --max-instructions 2e6 --set 'stimuli=[{at: 1ms, set: " + press + "}, {at: 2ms, set: " + release + "}]'");
    CHECK(one.out.empty());
}

// ---- validation ----

TEST_CASE("libopencm3: fancyblink (validation): PC8 and PC9 blink in turn every 2,000,000 delay-loop rounds") {
    // fancyblink.c: 24 MHz from HSE; gpio_set(GPIOC, GPIO8) (BSRR 0x00000100), then forever
    // gpio_toggle(GPIOC, GPIO8 | GPIO9) and 2,000,000 nops: BSRR 0x01000200 (PC8 off, PC9 on),
    // 0x02000100, 0x01000200, ... 14 M instructions: the set and 3 toggles.
    TempDir dir;
    Cli r = run("fancyblink", "14e6", dir.file("e.jsonl"));
    CHECK(r.status == 3);
    const Events ev = read_events(dir.file("e.jsonl"));
    std::vector<Mmio> writes = gpioc_pin_writes(ev);
    REQUIRE(writes.size() >= 4);
    CHECK(writes[0].address == kGpiocBsrr);
    CHECK(writes[0].value == 0x00000100u);
    check_blink(writes, 1, 0x01000200u, 0x02000100u, 2000000);
}

TEST_CASE("libopencm3: spi (validation): each SPI1 transfer is reported on USART2 through printf") {
    // spi.c: 24 MHz from HSE; SPI1 master at fPCLK/64, USART2 115200 8N1 as newlib's stdout (its
    // _write). newlib's stdout is fully buffered here (libnosys's _fstat fails, so no line
    // buffering): the board's USART2 sends in blocks of BUFSIZ = 1024 bytes, the first once 18 or
    // 19 lines are formatted. Each line: "Counter: N  SPI Sent Byte: N%256    SPI Received Byte: R\r\n",
    // R whatever MISO (PA6, floating; the example wants it looped to MOSI) shifted in, 0..255.
    Cli r = run("spi", "20e6");
    CHECK(r.status == 3);
    REQUIRE(r.out.size() >= 1024);
    const std::regex line(R"(Counter: (\d+)  SPI Sent Byte: (\d+)    SPI Received Byte: (\d+)\r\n)");
    int expected = 0;
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        CAPTURE(m.str(0));
        if (expected == 0) CHECK(m.position(0) == 0);
        CHECK(std::stoi(m.str(1)) == expected);
        CHECK(std::stoi(m.str(2)) == expected % 256);
        CHECK(std::stoi(m.str(3)) <= 255);
        ++expected;
    }
    CHECK(expected >= 18);
}

TEST_CASE("libopencm3: rtc (validation): the RTC second interrupt prints the counter in binary once a second") {
    // rtc.c: RTC from the LSE (32.768 kHz), prescaler 0x7fff: the SEC flag once a second; rtc_isr
    // clears it, toggles PC8 and sends the counter as 32 binary digits and "\n\r" on USART1. The
    // backup domain starts reset, so the counter counts from 0: the first line is 1, then 2.
    // The main loop idles (while (1);): 60 M instructions are more than 2 s at 24 MHz.
    Cli r = run("rtc", "60e6");
    CHECK(r.status == 3);
    CHECK(r.out.rfind("00000000000000000000000000000001\n\r"
                      "00000000000000000000000000000010\n\r",
                      0) == 0);
}

TEST_CASE("libopencm3: adc-dac-printf (validation): the ADC readings are printed on USART2, one line a round") {
    // adc-dac-printf.c: 24 MHz from HSI through the PLL; USART2 115200 as stdout, "\n" sent as
    // "\r\n"; "hi guys!" then, each round, ADC1 channels 0 and 1 read by single conversions, half
    // the first written to DAC channel 2, "tick: j: adc0= A, target adc1=A/2, adc1=B" and 1,000,000
    // nops (3 M instructions). stdout is fully buffered (BUFSIZ 1024): the first block leaves once
    // about 22 lines are formatted. 100 M instructions: 33 rounds.
    Cli r = run("adc_dac_printf", "100e6");
    CHECK(r.status == 3);
    REQUIRE(r.out.size() >= 1024);
    CHECK(r.out.rfind("hi guys!\r\ntick: 0: adc0= ", 0) == 0);
    const std::regex line(R"(tick: (\d+): adc0= (\d+), target adc1=(\d+), adc1=(\d+)\r\n)");
    int expected = 0;
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        CAPTURE(m.str(0));
        const int adc0 = std::stoi(m.str(2)), target = std::stoi(m.str(3)), adc1 = std::stoi(m.str(4));
        CHECK(std::stoi(m.str(1)) == expected);
        CHECK(adc0 <= 4095);  // 12-bit, right-aligned
        CHECK(adc1 <= 4095);
        CHECK(target == adc0 / 2);
        ++expected;
    }
    CHECK(expected >= 20);
}

TEST_CASE("libopencm3: timer_irq (validation): 50 TIM2 update interrupts at 1 kHz take 50 ms") {
    // timer_irq.c: TIM2 at 24 MHz (APB1 undivided), PSC 23, ARR 999: an update each 1 ms; the
    // 50th, 50 ms after the counter starts (a few microseconds after reset), ends the wait.
    TempDir dir;
    Cli r = run("timer_irq", "5e6", dir.file("e.jsonl"), kDone);
    CHECK(r.status == 0);
    CHECK(r.out == "ticks=50\r\n");
    const Events ev = read_events(dir.file("e.jsonl"));
    REQUIRE(all_output(ev) == "ticks=50\r\n");
    const double seconds = double(output_cycle(ev, "ticks=50")) / kClockHz;
    CHECK(seconds == doctest::Approx(0.050).epsilon(0.05));
}

TEST_CASE("libopencm3: exti_swier (validation): software-triggered EXTI0 interrupts and SysTick ticks are counted") {
    // exti_swier.c: five EXTI_SWIER writes, each taken by exti0_isr (which clears EXTI_PR), then
    // SysTick at 1 ms (reload 23999 on the 24 MHz AHB clock) for 10 ticks.
    TempDir dir;
    Cli r = run("exti_swier", "5e6", dir.file("e.jsonl"), kDone);
    CHECK(r.status == 0);
    CHECK(r.out == "exti=5\r\nsystick=10\r\n");
    const Events ev = read_events(dir.file("e.jsonl"));
    REQUIRE(all_output(ev) == "exti=5\r\nsystick=10\r\n");
    // The ten SysTick periods lie between the two prints: 10 ms, plus at most the 8 bytes of
    // "exti=5\r\n" still on the line (0.7 ms at 115200 baud).
    const double between = double(output_cycle(ev, "systick=") - output_cycle(ev, "exti=")) / kClockHz;
    CHECK(between >= 0.0099);
    CHECK(between <= 0.0112);
    // Each EXTI0 interrupt cleared its pending bit by writing 1 to EXTI_PR bit 0 (0x40010414).
    std::size_t pr_clears = 0;
    for (const Mmio& m : writes_to(ev, 0x40010414))
        if (m.value & 1) ++pr_clears;
    CHECK(pr_clears == 5);
}

TEST_CASE("libopencm3: itm_printf: printf over SWO as libopencm3 sets it up reaches the console, waiting on FIFOREADY at the SWO's rate") {
    // itm_printf.c: TPIU in Manchester with ACPR 7 (16 x 8 = 128 core cycles a byte), the ITM with
    // port 0, each character sent once ITM_STIM8(0) reads FIFOREADY; four lines on ITM port 0, one on
    // USART1.
    TempDir dir;
    Cli r = emutrace_cli("run " + firmware("ocm3_itm_printf") + " -s " + board() + " --max-instructions 5e6 --stop-at done --events " +
                         dir.file("e.jsonl") + " --swo " + dir.file("t.swo") + " --json " + dir.file("r.json"));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const std::string swo_text = "swo: hello from libopencm3\r\nswo: 0\r\nswo: 1\r\nswo: 2\r\n";
    CHECK(r.out == swo_text + "usart: done\r\n");
    const Events ev = read_events(dir.file("e.jsonl"));
    std::string itm;
    std::uint64_t first = 0, last = 0;
    for (const Output& o : ev.output)
        if (o.from == "itm") {
            if (itm.empty()) first = o.cycle;
            itm += o.text;
            last = o.cycle;
        }
    CHECK(itm == swo_text);
    // 52 characters are 104 bytes on the wire at 128 cycles each; the 16-byte FIFO takes the first
    // ones at once, the firmware waits for the rest.
    CHECK(last - first >= (104 - 16) * 128);
    CHECK(last - first <= 104 * 128 + 2000);
    const json swo = json::parse(read_file(dir.file("r.json")))["swo"];
    CHECK(swo["port0_text"] == swo_text);
    CHECK(swo["lost_packets"] == 0);
    CHECK(swo["port_cycles_per_byte"] == 128);
}
