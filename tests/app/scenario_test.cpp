#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "decode/elf_image.h"
#include "emu/machine.h"
#include "emu/memory_map.h"
#include "emutrace/config.h"
#include "session/scenario.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace;
using emutrace::test::source;

TEST_CASE("scenario: the built-in board is the MPS2-AN385 layout") {
    session::Scenario sc = session::default_scenario();
    CHECK(sc.machine.core.name == "cortex-m3");
    CHECK(sc.machine.clock_hz == 25'000'000);
    REQUIRE(sc.machine.memory.size() == 3);
    CHECK(sc.machine.memory[0].base == 0u);
    CHECK(sc.machine.memory[0].access == (emu::AccessRead | emu::AccessExecute));
    CHECK(sc.machine.memory[1].base == 0x20000000u);
    REQUIRE(sc.machine.devices.size() == 1);
    CHECK(sc.machine.devices[0].type == "cmsdk.uart");
    CHECK(sc.machine.devices[0].base == 0x40004000u);
    CHECK(sc.machine.stop.wall_clock_seconds == 60);
}

TEST_CASE("scenario: the test scenarios parse with every field") {
    session::Scenario sc = session::load_scenario_file(source("tests/scenarios/stub_sensor.yaml"));
    REQUIRE(sc.machine.devices.size() == 2);
    CHECK(sc.machine.devices[1].name == "sensor");
    CHECK(sc.machine.devices[1].model->size() == 0x100);
    CHECK(sc.machine.stop.wall_clock_seconds == 20);
    session::Scenario f = session::load_scenario_file(source("tests/scenarios/faults.yaml"));
    CHECK(f.machine.memory[1].access == (emu::AccessRead | emu::AccessWrite));
}

TEST_CASE("scenario: mistakes name the file, line and key") {
    auto error = [](const char* file) {
        try {
            session::load_scenario_file(source(std::string("tests/scenarios/bad/") + file));
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error("unknown_key.yaml").find("unknown_key.yaml:4:36: memory[1].sise: unknown key") != std::string::npos);
    CHECK(error("syntax_error.yaml").find("syntax_error.yaml:4:5: YAML syntax error") != std::string::npos);
    CHECK(error("unknown_peripheral.yaml").find("unknown_peripheral.yaml:6:25: peripherals[0].type: unknown peripheral type 'nrf52.uarte'") !=
          std::string::npos);
}

TEST_CASE("scenario: a region's size must fit the 32-bit address space, and is reported as given when it does not") {
    auto load = [](const std::string& memory) {
        return session::load_scenario(config::Node::load_string("memory:\n  - " + memory + "\n", "t.yaml"));
    };
    CHECK_THROWS_WITH_AS(load("{name: all, base: 0, size: 4GiB}"), doctest::Contains("4294967296 bytes do not fit the 32-bit address space"),
                         ConfigError);
    CHECK_THROWS_WITH_AS(load("{name: big, base: 0, size: 8GiB}"), doctest::Contains("8589934592 bytes do not fit"), ConfigError);
    CHECK_THROWS_WITH_AS(load("{name: high, base: 0xF0000000, size: 512MiB}"), doctest::Contains("would end 268435456 bytes past the 4 GiB space"),
                         ConfigError);
    CHECK_THROWS_WITH_AS(load("{name: none, base: 0, size: 0}"), doctest::Contains("t.yaml:2:33: memory[0].size: must be non-zero"), ConfigError);
    CHECK(load("{name: top, base: 0xFFFFFC00, size: 1KiB}").machine.memory.size() == 1);
}

TEST_CASE("scenario: --set sets any key by its path over the file's, and says what is wrong with a path") {
    const config::Node base = config::Node::load_file(source("bench/soak.yaml"));
    session::Scenario sc = session::load_scenario(base.with_settings(
        {"clock=24MHz", "stimuli[0].every=2s", "seed=7", "peripherals[2].params.registers[0].sequence=[1, 2]", "stop.max_instructions=1000"}));
    CHECK(sc.machine.clock_hz == 24'000'000u);
    CHECK(sc.machine.stimuli.at(0).every_seconds == doctest::Approx(2.0));
    CHECK(sc.machine.seed == 7u);
    CHECK(sc.machine.stop.max_instructions == 1000u);
    CHECK(session::load_scenario(base).machine.clock_hz == 48'000'000u);  // the file's own document is untouched
    auto error = [&](const std::string& setting) {
        try {
            session::load_scenario(base.with_settings({setting}));
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error("stimuli[1].every=1s") == "--set stimuli[1].every=1s: stimuli has 1 entries, no [1]");
    CHECK(error("clock.hz=1") == "--set clock.hz=1: clock is no mapping, so it has no key 'hz'");
    CHECK(error("clock").find("give it as path=value") != std::string::npos);
    CHECK(error("clokc=1MHz").find("clokc: unknown key") != std::string::npos);  // checked as a file's key is
}

TEST_CASE("scenario: stimuli, faults, nvic and rtos keys") {
    auto load = [](const std::string& extra) {
        return session::load_scenario(config::Node::load_string("memory: [{name: ram, base: 0x20000000, size: 64KiB}]\n" + extra, "s.yaml"));
    };
    session::Scenario sc = load(
        "faults: handler\nseed: 9\nnvic: {priority_bits: 3, irqs: 32}\n"
        "rtos: {current_thread: pxCurrentTCB, name_offset: 52}\n"
        "stimuli:\n  - {at: 1ms, irq: 3}\n  - {every: 200us, count: 5, jitter: 10us, irq: 4}\n"
        "  - {at: 2ms, uart_rx: {device: uart0, data: \"hi\"}}\n");
    CHECK(sc.machine.faults == emu::FaultPolicy::Handler);
    CHECK(sc.machine.seed == 9);
    CHECK(sc.machine.priority_bits == 3);
    CHECK(sc.machine.irqs == 32);
    CHECK(sc.machine.rtos.current_thread == "pxCurrentTCB");
    CHECK(sc.machine.rtos.name_offset == 52u);
    REQUIRE(sc.machine.stimuli.size() == 3);
    CHECK(sc.machine.stimuli[1].every_seconds == doctest::Approx(200e-6));
    CHECK(sc.machine.stimuli[1].at_seconds == doctest::Approx(200e-6));  // starts after one period by default
    CHECK(sc.machine.stimuli[2].kind == emu::Stimulus::Kind::UartRx);

    CHECK_THROWS_WITH_AS(load("stimuli: [{at: 1ms}]\n"), doctest::Contains("exactly one of: irq, set, uart_rx"), ConfigError);
    CHECK_THROWS_WITH_AS(load("stimuli: [{every: 1ms, jitter: 600us, irq: 1}]\n"), doctest::Contains("at most half the period"), ConfigError);
    CHECK_THROWS_WITH_AS(load("stimuli: [{at: 1ms, count: 3, irq: 1}]\n"), doctest::Contains("only periodic stimuli"), ConfigError);
    CHECK_THROWS_WITH_AS(load("faults: ignore\n"), doctest::Contains("'ignore' is not one of: stop, handler"), ConfigError);
    CHECK_THROWS_WITH_AS(load("nvic: {priority_bits: 9}\n"), doctest::Contains("between 2 and 8"), ConfigError);
}

TEST_CASE("scenario: what YAML lets through is an error: a key twice, a key with no value, a second document, a long value echoed") {
    auto load = [](const std::string& text) { return session::load_scenario(config::Node::load_string(text, "s.yaml")); };
    const std::string ram = "memory: [{name: ram, base: 0x20000000, size: 64KiB}]\n";
    CHECK_THROWS_WITH_AS(load("cpu: cortex-m3\n" + ram + "cpu: cortex-m4\n"),
                         doctest::Contains("s.yaml:3:1: 'cpu' appears twice in one mapping (first at line 1)"), ConfigError);
    CHECK_THROWS_WITH_AS(load(ram + "stop: {wall_clock: 1s, wall_clock: 2s}\n"), doctest::Contains("'wall_clock' appears twice"), ConfigError);
    CHECK_THROWS_WITH_AS(load("cpu:\n" + ram), doctest::Contains("s.yaml:1:1: 'cpu' has no value"), ConfigError);
    CHECK_THROWS_WITH_AS(load(ram + "clock: ~\n"), doctest::Contains("'clock' has no value"), ConfigError);
    CHECK_THROWS_WITH_AS(load(ram + "---\ncpu: cortex-m4\n"), doctest::Contains("a second YAML document"), ConfigError);
    CHECK_THROWS_WITH_AS(
        load(ram + "peripherals:\n  - {name: u, type: cmsdk.uart, base: 0x40004000}\n  - {name: u, type: cmsdk.uart, base: 0x40005000}\n"),
        doctest::Contains("a second peripheral named 'u'"), ConfigError);
    // Nested aliases ("billion laughs") are counted as they expand, not walked for ever.
    std::string bomb = ram + "calltrace:\n  include: &a [x, x, x, x, x, x, x, x, x, x]\n  exclude: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n";
    bomb += "  phases: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nwcet: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n";
    bomb += "sampler: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
    CHECK_THROWS_WITH_AS(load(bomb), doctest::Contains("more than 200000 values"), ConfigError);
    // A file past 1 MiB, or a device that never ends, is refused before yaml-cpp builds its tree
    // (6 MB of YAML took 1.4 GB, 20 MB ended in bad_alloc naming no file).
    test::TempDir dir;
    const std::string big = dir.file("big.yaml");
    test::write_file(big, ram + "calltrace: {include: [" + std::string(2'000'000, 'x') + "]}\n");
    CHECK_THROWS_WITH_AS(config::Node::load_file(big), doctest::Contains("big.yaml: the scenario or campaign file is larger than 1 MiB: refused"),
                         ConfigError);
    CHECK_THROWS_WITH_AS(config::Node::load_file("/dev/zero"),
                         doctest::Contains("/dev/zero: the scenario or campaign file is larger than 1 MiB (read from a pipe or device)"),
                         ConfigError);
    // A 10 MB value is quoted by its start and its size: the error stays one short line.
    try {
        load(ram + "clock: " + std::string(10'000'000, '9') + "x\n");
        FAIL("a bad clock passed");
    } catch (const ConfigError& e) {
        std::string what = e.what();
        CHECK(what.size() < 300);
        CHECK(what.find("(10000001 characters)") != std::string::npos);
    }
}

TEST_CASE("scenario: timing names a model, or a model with the pipeline's facts and cache") {
    auto load = [](const std::string& timing) {
        return session::load_scenario(
                   config::Node::load_string("memory: [{name: ram, base: 0x20000000, size: 64KiB}]\ntiming: " + timing + "\n", "s.yaml"))
            .machine;
    };
    using Facts = emu::MachineConfig::PipelineFacts;
    emu::MachineConfig m = load("pipeline");
    CHECK(m.timing == emu::TimingMode::Pipeline);
    CHECK(m.pipeline_facts == Facts::Block);  // the defaults: per block, through the cache
    CHECK(m.timing_cache);
    m = load("{model: pipeline, facts: instruction, cache: false}");
    CHECK(m.timing == emu::TimingMode::Pipeline);
    CHECK(m.pipeline_facts == Facts::Instruction);
    CHECK(!m.timing_cache);
    CHECK(load("{model: none}").timing == emu::TimingMode::None);
    CHECK_THROWS_WITH_AS(load("{model: trm, cache: false}"), doctest::Contains("s.yaml:2"), ConfigError);
    CHECK_THROWS_WITH_AS(load("{model: trm, cache: false}"), doctest::Contains("options of model: pipeline"), ConfigError);
    CHECK_THROWS_WITH_AS(load("{model: pipeline, facts: sometimes}"), doctest::Contains("'sometimes' is not one of: block, instruction"),
                         ConfigError);
    CHECK_THROWS_WITH_AS(load("{model: pipeline, speed: fast}"), doctest::Contains("timing.speed"), ConfigError);
}

TEST_CASE(
    "scenario: the STM32F100 preset fetches code from SRAM over the System bus, shares the flash port with loads and times unaligned accesses, the "
    "default does none of it") {
    session::Scenario sc = session::load_scenario_file(source("scenarios/boards/stm32f100.yaml"));
    CHECK(sc.machine.clock_hz == 24'000'000);
    REQUIRE(sc.machine.memory.size() == 4);
    const auto &flash = sc.machine.memory[0], &boot = sc.machine.memory[1], &sram = sc.machine.memory[2], &apb = sc.machine.memory[3];
    CHECK(flash.base == 0x08000000u);
    CHECK(flash.fetch_word_cycles == 0);
    CHECK(sram.fetch_word_cycles == 2);
    CHECK(flash.shares_fetch_port);  // loads from flash take the flash interface first
    CHECK_FALSE(sram.shares_fetch_port);
    CHECK((flash.times_unaligned && sram.times_unaligned));
    CHECK_FALSE(apb.times_unaligned);  // the APB window: no device models
    // The boot alias at 0 holds the flash's image, with the flash's timing.
    CHECK((boot.base == 0 && boot.size == flash.size && boot.mirrors == "flash" && boot.access == flash.access));
    CHECK((boot.shares_fetch_port && boot.times_unaligned && boot.fetch_word_cycles == 0));
    CHECK(flash.mirrors.empty());
    for (const auto& r : session::default_scenario().machine.memory) CHECK((r.fetch_word_cycles == 0 && !r.shares_fetch_port && !r.times_unaligned));
    auto parse = [](const std::string& region) {
        return session::load_scenario(config::Node::load_string("memory:\n  - " + region + "\n", "s.yaml"));
    };
    CHECK_THROWS_WITH_AS(parse("{name: sram, base: 0x20000000, size: 8KiB, fetch_word_cycles: 99}"),
                         doctest::Contains("s.yaml:2:67: memory[0].fetch_word_cycles: must be between 0 and 15"), ConfigError);
    CHECK_THROWS_WITH_AS(parse("{name: io, kind: mmio, base: 0x40000000, size: 4KiB, shares_fetch_port: true}"),
                         doctest::Contains("memory[0].shares_fetch_port: code is not fetched from MMIO"), ConfigError);
    CHECK_THROWS_WITH_AS(parse("{name: f, kind: flash, base: 0, size: 4KiB, shares_fetch_port: maybe}"),
                         doctest::Contains("memory[0].shares_fetch_port"), ConfigError);
    CHECK_THROWS_WITH_AS(parse("{name: io, kind: mmio, base: 0x40000000, size: 4KiB, times_unaligned: true}"),
                         doctest::Contains("memory[0].times_unaligned: device accesses are timed by their devices"), ConfigError);
    CHECK_THROWS_WITH_AS(parse("{name: sram, base: 0x20000000, size: 8KiB, times_unaligned: 2}"), doctest::Contains("memory[0].times_unaligned"),
                         ConfigError);
    CHECK_THROWS_WITH_AS(parse("{name: boot, base: 0, size: 4KiB, mirrors: flash}"),
                         doctest::Contains("memory[0].mirrors: only a read-only region (kind flash or rom) can mirror another"), ConfigError);
    CHECK_THROWS_WITH_AS(parse("{name: boot, kind: flash, base: 0, size: 4KiB, mirrors: flash}"),
                         doctest::Contains("memory[0].mirrors: 'flash' is no other plain memory region"), ConfigError);
}

TEST_CASE("scenario: a flash region's cache, the CC2652 preset's VIMS, its keys are checked") {
    session::Scenario sc = session::load_scenario(session::load_board("cc2652"));
    CHECK(sc.machine.core.kind == models::CoreKind::CortexM4F);
    CHECK(sc.machine.clock_hz == 48'000'000);
    REQUIRE(!sc.machine.memory.empty());
    const emu::MemoryRegion& flash = sc.machine.memory[0];
    REQUIRE(flash.cache);
    CHECK((flash.cache->size == 8192 && flash.cache->ways == 4 && flash.cache->line == 8 && flash.cache->flash_line == 16));
    CHECK((flash.cache->miss_cycles == 2 && flash.cache->tag_cycles == 1));
    for (std::size_t i = 1; i < sc.machine.memory.size(); ++i) CHECK_FALSE(sc.machine.memory[i].cache);
    // The cache's RAM as GPRAM, which firmware may use once it sets the VIMS's mode so.
    auto gpram = std::find_if(sc.machine.memory.begin(), sc.machine.memory.end(), [](const auto& r) { return r.base == 0x11000000; });
    REQUIRE(gpram != sc.machine.memory.end());
    CHECK(gpram->size == 8192);
    CHECK((gpram->access & emu::AccessWrite));
    auto parse = [](const std::string& region) {
        return session::load_scenario(config::Node::load_string("memory:\n  - " + region + "\n", "s.yaml"));
    };
    auto with_cache = [&](const std::string& cache) { return parse("{name: f, kind: flash, base: 0, size: 64KiB, cache: " + cache + "}"); };
    CHECK(with_cache("true").machine.memory[0].cache->size == 8192);  // every default
    CHECK(with_cache("{size: 16KiB, ways: 2, flash_line: 0}").machine.memory[0].cache->flash_line == 0);
    CHECK_THROWS_WITH_AS(with_cache("{ways: 3}"), doctest::Contains("memory[0].cache.ways: must be a power of two from 1 to 64"), ConfigError);
    CHECK_THROWS_WITH_AS(with_cache("{size: 16, ways: 4, line: 8}"), doctest::Contains("holds less than one set of 4 lines"), ConfigError);
    CHECK_THROWS_WITH_AS(with_cache("{line: 2}"), doctest::Contains("memory[0].cache: a line holds at least a word"), ConfigError);
    CHECK_THROWS_WITH_AS(with_cache("{miss_cycles: 20}"), doctest::Contains("memory[0].cache.miss_cycles: must be between 0 and 15"), ConfigError);
    CHECK_THROWS_WITH_AS(with_cache("{assoc: 4}"), doctest::Contains("memory[0].cache"), ConfigError);
    CHECK_THROWS_WITH_AS(with_cache("false"), doctest::Contains("leaves out `cache`"), ConfigError);
    CHECK_THROWS_WITH_AS(parse("{name: s, base: 0x20000000, size: 8KiB, cache: true}"), doctest::Contains("only a read-only region"), ConfigError);
}

TEST_CASE("scenario: board presets are compiled in by name, a boot alias holds the flash's image, and an unknown board lists the presets") {
    auto names = session::board_preset_names();
    CHECK(std::find(names.begin(), names.end(), "stm32f100") != names.end());
    CHECK(std::find(names.begin(), names.end(), "mps2-an385") != names.end());
    session::Scenario preset = session::load_scenario(session::load_board("stm32f100"));
    session::Scenario file = session::load_scenario(session::load_board(source("scenarios/boards/stm32f100.yaml")));
    REQUIRE(preset.machine.memory.size() == file.machine.memory.size());
    for (std::size_t i = 0; i < preset.machine.memory.size(); ++i) {
        const auto &a = preset.machine.memory[i], &b = file.machine.memory[i];
        CHECK(describe(a) == describe(b));
        CHECK((a.mirrors == b.mirrors && a.fetch_word_cycles == b.fetch_word_cycles && a.shares_fetch_port == b.shares_fetch_port &&
               a.times_unaligned == b.times_unaligned));
    }

    // Vector table (SP, reset) and a word, loaded at the flash: the alias at 0 reads the same.
    std::vector<std::uint8_t> bytes = {0x00, 0x20, 0x00, 0x20, 0x09, 0x00, 0x00, 0x08, 0xfe, 0xe7, 0xfe, 0xe7, 0x78, 0x56, 0x34, 0x12};
    emu::Machine m(std::move(preset.machine), decode::ElfImage::raw("image", {0x08000000}, bytes));
    CHECK(m.read_memory(0, 16) == bytes);
    CHECK(m.read_memory(0x08000000, 16) == bytes);

    CHECK_THROWS_WITH_AS(session::load_board("stm32f999"), doctest::Contains("unknown board 'stm32f999' (presets: cc2652, mps2-an385, stm32f100"),
                         ConfigError);
}

TEST_CASE("scenario: a prototype makes each run's machine as the file reads, with devices of its own, its SVD parsed once") {
    // The STM32F100 preset beside a copy of its SVD file, which goes once the prototype is made.
    test::TempDir dir;
    std::filesystem::create_directories(dir.file("svd"));
    std::string yaml = test::read_file(source("scenarios/boards/stm32f100.yaml"));
    REQUIRE(yaml.find("file: svd/STM32F100.svd") != std::string::npos);
    yaml.replace(yaml.find("file: svd/STM32F100.svd"), 23, "file: svd/part.svd");
    test::write_file(dir.file("board.yaml"), yaml);
    std::filesystem::copy_file(source("scenarios/boards/svd/STM32F100.svd"), dir.file("svd/part.svd"));
    const config::Node board = config::Node::load_file(dir.file("board.yaml"));
    const session::Scenario read = session::load_scenario(board);
    const session::ScenarioPrototype prototype(board);
    std::filesystem::remove(dir.file("svd/part.svd"));
    CHECK_THROWS(session::load_scenario(board));
    const session::Scenario first = prototype.make(), second = prototype.make();
    REQUIRE(first.machine.devices.size() == read.machine.devices.size());
    REQUIRE(second.machine.devices.size() == read.machine.devices.size());
    CHECK(read.machine.devices.size() > 10);  // RCC, GPIO, USART, ... from the SVD
    for (std::size_t i = 0; i < read.machine.devices.size(); ++i) {
        CAPTURE(read.machine.devices[i].name);
        CHECK(first.machine.devices[i].name == read.machine.devices[i].name);
        CHECK(first.machine.devices[i].base == read.machine.devices[i].base);
        CHECK(first.machine.devices[i].model->size() == read.machine.devices[i].model->size());
        CHECK(first.machine.devices[i].model.get() != second.machine.devices[i].model.get());
    }
    CHECK(first.machine.memory.size() == read.machine.memory.size());
}
