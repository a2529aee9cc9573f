#include "session/scenario.h"

#include <algorithm>
#include <filesystem>

#include "config/units.h"
#include "decode/dwarf_types.h"
#include "decode/elf_image.h"
#include "decode/rtos_preset.h"
#include "emu/peripherals/registry.h"
#include "emutrace/config_error.h"
#include "session/builtin_scenarios.h"
#include "session/svd_section.h"

namespace emutrace::session {
namespace {

// A region's `cache:`: a map of the cache's geometry and costs, each with the CC26x2 VIMS's value
// as its default, or `true` for all of them.
models::FlashCacheParameters parse_cache(const config::Node& n) {
    models::FlashCacheParameters c;
    if (n.is_scalar()) {
        if (!n.boolean()) n.fail("a region without a cache leaves out `cache`");
        return c;
    }
    n.allow_only({"size", "ways", "line", "flash_line", "miss_cycles", "tag_cycles"});
    // `zero_means_none`: a flash without a line buffer is `flash_line: 0`.
    auto power_of_two = [&](std::string_view key, std::uint32_t& field, std::uint64_t most, bool zero_means_none = false) {
        if (!n.has(key)) return;
        std::uint64_t v = key == "ways" ? n[key].integer() : n[key].size();
        if (v == 0 && zero_means_none) {
            field = 0;
            return;
        }
        if (v == 0 || v > most || (v & (v - 1))) n[key].fail("must be a power of two from 1 to " + std::to_string(most));
        field = static_cast<std::uint32_t>(v);
    };
    power_of_two("size", c.size, 1u << 20);
    power_of_two("ways", c.ways, 64);
    power_of_two("line", c.line, 256);
    power_of_two("flash_line", c.flash_line, 256, true);
    for (auto [key, field] : {std::pair{"miss_cycles", &c.miss_cycles}, std::pair{"tag_cycles", &c.tag_cycles}}) {
        if (!n.has(key)) continue;
        std::uint64_t v = n[key].integer();
        if (v > 15) n[key].fail("must be between 0 and 15");
        *field = static_cast<std::uint8_t>(v);
    }
    if (c.line < 4) n.fail("a line holds at least a word (line: 4)");
    if (std::uint64_t{c.line} * c.ways > c.size)
        n.fail("size " + std::to_string(c.size) + " holds less than one set of " + std::to_string(c.ways) + " lines");
    return c;
}

emu::MemoryRegion parse_region(const config::Node& n) {
    n.allow_only(
        {"name", "kind", "base", "size", "access", "wait_states", "fetch_word_cycles", "shares_fetch_port", "times_unaligned", "mirrors", "cache"});
    n.require({"name", "base", "size"});
    emu::MemoryRegion r;
    r.name = n["name"].str();
    r.base = n["base"].u32();
    std::uint64_t size = n["size"].size();
    constexpr std::uint64_t kSpace = 0x1'0000'0000ull;
    if (size == 0) n["size"].fail("must be non-zero");
    if (size >= kSpace) n["size"].fail(std::to_string(size) + " bytes do not fit the 32-bit address space (4 GiB is all of it)");
    if (size > kSpace - r.base)
        n["size"].fail("the region would end " + std::to_string(r.base + size - kSpace) + " bytes past the 4 GiB space (it starts at " +
                       config::hex32(r.base) + ")");
    r.size = static_cast<std::uint32_t>(size);
    std::string kind = n.has("kind") ? n["kind"].choice({"flash", "rom", "ram", "mmio"}) : "ram";
    r.mmio = kind == "mmio";
    r.access =
        (kind == "flash" || kind == "rom") ? (emu::AccessRead | emu::AccessExecute) : (emu::AccessRead | emu::AccessWrite | emu::AccessExecute);
    if (n.has("access")) {
        if (r.mmio) n["access"].fail("mmio regions take their access rules from their devices");
        std::string a = n["access"].choice({"r", "rw", "rx", "rwx"});
        r.access =
            emu::AccessRead | (a.find('w') != std::string::npos ? emu::AccessWrite : 0) | (a.find('x') != std::string::npos ? emu::AccessExecute : 0);
    }
    if (n.has("wait_states")) {
        if (r.mmio) n["wait_states"].fail("wait states of MMIO are the devices' read_latency");
        r.wait_states = n["wait_states"].u32();
        if (r.wait_states > 15) n["wait_states"].fail("must be between 0 and 15");
    }
    if (n.has("fetch_word_cycles")) {
        if (r.mmio) n["fetch_word_cycles"].fail("code does not run from MMIO");
        std::uint32_t c = n["fetch_word_cycles"].u32();
        if (c > 15) n["fetch_word_cycles"].fail("must be between 0 and 15");
        r.fetch_word_cycles = static_cast<std::uint8_t>(c);
    }
    if (n.has("shares_fetch_port")) {
        if (r.mmio) n["shares_fetch_port"].fail("code is not fetched from MMIO");
        r.shares_fetch_port = n["shares_fetch_port"].boolean();
    }
    if (n.has("times_unaligned")) {
        if (r.mmio) n["times_unaligned"].fail("device accesses are timed by their devices");
        r.times_unaligned = n["times_unaligned"].boolean();
    }
    if (n.has("mirrors")) {
        if (r.mmio || (r.access & emu::AccessWrite)) n["mirrors"].fail("only a read-only region (kind flash or rom) can mirror another");
        r.mirrors = n["mirrors"].str();
    }
    if (n.has("cache")) {
        if (r.mmio || (r.access & emu::AccessWrite))
            n["cache"].fail("only a read-only region (kind flash or rom) has a cache here: writes through one are not modelled");
        r.cache = parse_cache(n["cache"]);
    }
    return r;
}

void parse_stop(const config::Node& n, emu::StopConfig& s) {
    n.allow_only({"max_instructions", "wall_clock", "at_symbol", "on_hang"});
    if (n.has("max_instructions")) s.max_instructions = n["max_instructions"].integer();
    if (n.has("wall_clock")) s.wall_clock_seconds = n["wall_clock"].seconds();
    if (n.has("at_symbol")) s.at_symbol = n["at_symbol"].str();
    if (n.has("on_hang")) s.on_hang = n["on_hang"].boolean();
}

void parse_semihosting(const config::Node& n, emu::SemihostingConfig& s) {
    n.allow_only({"host_dir", "cmdline", "epoch"});
    if (n.has("host_dir")) {
        std::filesystem::path dir = n["host_dir"].str();
        if (dir.is_relative()) dir = std::filesystem::path(n.file()).parent_path() / dir;
        if (!std::filesystem::is_directory(dir)) n["host_dir"].fail("'" + dir.string() + "' is not a directory");
        s.host_dir = dir;
    }
    if (n.has("cmdline")) s.cmdline = n["cmdline"].str();
    if (n.has("epoch")) s.epoch = n["epoch"].integer();
}

emu::Stimulus parse_stimulus(const config::Node& n) {
    n.allow_only({"at", "every", "start", "count", "jitter", "irq", "set", "uart_rx"});
    emu::Stimulus s;
    int actions = n.has("irq") + n.has("set") + n.has("uart_rx");
    if (actions != 1) n.fail("a stimulus does exactly one of: irq, set, uart_rx");
    // Live input (uart_rx from a host path) is polled: every 100 us unless `every` says otherwise.
    const bool live = n.has("uart_rx") && n["uart_rx"].has("from");
    if (live && !n.has("every")) {
        if (n.has("at")) n["at"].fail("live input is polled from 'start' every 'every' (default 100us), not at one time");
        s.every_seconds = 100e-6;
        s.at_seconds = n.has("start") ? n["start"].seconds() : s.every_seconds;
        s.count = 0;
        for (auto key : {"count", "jitter"})
            if (n.has(key)) n[key].fail("live input takes no '" + std::string(key) + "'");
    } else if (n.has("every")) {
        if (n.has("at")) n["at"].fail("a periodic stimulus starts at 'start', not 'at'");
        s.every_seconds = n["every"].seconds();
        if (s.every_seconds <= 0) n["every"].fail("the period must be positive");
        s.at_seconds = n.has("start") ? n["start"].seconds() : s.every_seconds;
        s.count = n.has("count") ? n["count"].integer() : 0;
        if (n.has("jitter")) {
            s.jitter_seconds = n["jitter"].seconds();
            if (s.jitter_seconds > s.every_seconds / 2) n["jitter"].fail("jitter may be at most half the period");
        }
    } else {
        n.require({"at"});
        for (auto key : {"start", "count", "jitter"})
            if (n.has(key)) n[key].fail("only periodic stimuli (with 'every') take this key");
        s.at_seconds = n["at"].seconds();
    }
    if (n.has("irq")) {
        s.kind = emu::Stimulus::Kind::Irq;
        s.irq = static_cast<int>(n["irq"].u32());
    } else if (n.has("set")) {
        const config::Node set = n["set"];
        set.allow_only({"device", "register", "value"});
        set.require({"device", "register", "value"});
        s.kind = emu::Stimulus::Kind::SetRegister;
        s.device = set["device"].str();
        s.register_name = set["register"].str();
        s.value = set["value"].u32();
    } else {
        const config::Node rx = n["uart_rx"];
        rx.allow_only({"device", "data", "from"});
        rx.require({"device"});
        if (rx.has("data") == rx.has("from")) rx.fail("uart_rx takes either data (bytes to send) or from (a host file, FIFO or Unix socket)");
        s.kind = emu::Stimulus::Kind::UartRx;
        s.device = rx["device"].str();
        if (rx.has("data"))
            s.data = rx["data"].str();
        else  // relative to the scenario file, as its other paths are
            s.source = (std::filesystem::path(rx.file()).parent_path() / rx["from"].str()).string();
    }
    return s;
}

void parse_rtos(const config::Node& n, emu::RtosConfig& r, std::string& preset) {
    if (n.defined() && n.is_scalar()) {  // `rtos: freertos`: the rest from the ELF (take_rtos_preset)
        preset = n.str();
        if (!decode::find_rtos_preset(preset)) n.fail("unknown RTOS '" + preset + "' (known: " + decode::rtos_preset_names() + ")");
        return;
    }
    n.allow_only({"current_thread", "name_offset", "name_length", "stack_offset"});
    if (!n.defined()) return;
    n.require({"current_thread"});
    r.current_thread = n["current_thread"].str();
    if (n.has("name_offset")) r.name_offset = n["name_offset"].u32();
    if (n.has("stack_offset")) r.stack_offset = n["stack_offset"].u32();
    if (n.has("name_length")) {
        r.name_length = n["name_length"].u32();
        if (r.name_length == 0 || r.name_length > 256) n["name_length"].fail("must be between 1 and 256");
    }
}

void parse_nvic(const config::Node& n, emu::MachineConfig& m) {
    n.allow_only({"priority_bits", "irqs"});
    if (n.has("priority_bits")) {
        m.priority_bits = n["priority_bits"].u32();
        if (m.priority_bits < 2 || m.priority_bits > 8) n["priority_bits"].fail("must be between 2 and 8");
    }
    if (n.has("irqs")) {
        m.irqs = n["irqs"].u32();
        if (m.irqs < 1 || m.irqs > 240) n["irqs"].fail("must be between 1 and 240");
    }
}

}  // namespace

std::vector<std::string> scenario_plugins(const config::Node& root) {
    std::vector<std::string> out;
    if (!root.is_map() || !root.has("plugins")) return out;
    for (const auto& p : root["plugins"].items()) {
        std::filesystem::path path = p.str();
        if (path.is_relative() && path.has_parent_path()) path = std::filesystem::path(root.file()).parent_path() / path;
        out.push_back(path.string());
    }
    return out;
}

// `timing: pipeline`, or with the pipeline's options: `timing: {model: pipeline, facts: instruction, cache: false}`.
void parse_timing(const config::Node& n, emu::MachineConfig& m) {
    if (!n.is_map()) {
        m.timing = *emu::timing_mode_named(n.choice({"trm", "pipeline", "none"}));
        return;
    }
    n.allow_only({"model", "facts", "cache"});
    if (n.has("model")) m.timing = *emu::timing_mode_named(n["model"].choice({"trm", "pipeline", "none"}));
    if ((n.has("facts") || n.has("cache")) && m.timing != emu::TimingMode::Pipeline) n.fail("facts and cache are options of model: pipeline");
    if (n.has("facts"))
        m.pipeline_facts = n["facts"].choice({"block", "instruction"}) == "block" ? emu::MachineConfig::PipelineFacts::Block
                                                                                  : emu::MachineConfig::PipelineFacts::Instruction;
    if (n.has("cache")) m.timing_cache = n["cache"].boolean();
}

namespace {

// load_scenario, with the SVD file the scenario names already read (`svd_read`), or not (null).
Scenario read_scenario(const config::Node& root, const AnalysisRegistry& registry, const decode::svd::Device* svd_read) {
    if (!root.is_map()) root.fail("a scenario is a mapping of keys (cpu, clock, memory, peripherals, ...)");
    std::vector<std::string> keys = {"cpu",         "clock",   "vector_table", "memory",  "peripherals", "unclaimed_mmio", "stop",   "semihosting",
                                     "outputs",     "nvic",    "faults",       "stimuli", "seed",        "rtos",           "timing", "firmware",
                                     "user_events", "plugins", "bit_band",     "svd"};
    for (const auto& k : registry.sections()) keys.push_back(k);
    root.allow_only(keys);
    Scenario sc;
    sc.file = root.file();
    sc.root = root;
    sc.plugins = scenario_plugins(root);
    emu::MachineConfig& m = sc.machine;
    if (root.has("cpu")) {
        auto core = models::find_core(root["cpu"].str());
        if (!core) root["cpu"].fail("unknown core '" + root["cpu"].str() + "' (known: " + models::core_names() + ")");
        m.core = *core;
        sc.core_given = true;
    }
    if (root.has("clock")) m.clock_hz = root["clock"].frequency();
    if (root.has("vector_table")) m.vector_table = root["vector_table"].u32();
    for (const auto& n : root["memory"].items()) m.memory.push_back(parse_region(n));
    for (std::size_t i = 0; i < m.memory.size(); ++i) {
        const std::string& of = m.memory[i].mirrors;
        if (of.empty()) continue;
        auto it = std::find_if(m.memory.begin(), m.memory.end(), [&](const emu::MemoryRegion& r) { return r.name == of; });
        if (it == m.memory.end() || it->mmio || it - m.memory.begin() == static_cast<std::ptrdiff_t>(i) || !it->mirrors.empty())
            root["memory"].items()[i]["mirrors"].fail("'" + of + "' is no other plain memory region (that mirrors none)");
    }
    std::optional<decode::svd::Device> svd_here;
    const decode::svd::Device* svd = nullptr;
    if (root.has("svd")) svd = svd_read ? svd_read : &svd_here.emplace(read_scenario_svd(root["svd"]));
    if (root.has("peripherals")) {
        for (const auto& n : root["peripherals"].items()) {
            m.devices.push_back(parse_device(n, svd));
            for (std::size_t i = 0; i + 1 < m.devices.size(); ++i)
                if (m.devices[i].name == m.devices.back().name)
                    n["name"].fail("a second peripheral named '" + m.devices.back().name +
                                   "' (stimuli and events name peripherals: each needs its own)");
        }
    }
    if (svd) add_svd_devices(root["svd"], *svd, m);
    if (root.has("bit_band")) m.bit_band = root["bit_band"].boolean();
    if (root.has("unclaimed_mmio"))
        m.unclaimed_mmio = root["unclaimed_mmio"].choice({"fault", "log"}) == "log" ? emu::UnclaimedMmio::Log : emu::UnclaimedMmio::Fault;
    parse_stop(root["stop"], m.stop);
    parse_nvic(root["nvic"], m);
    if (root.has("faults")) m.faults = root["faults"].choice({"stop", "handler"}) == "handler" ? emu::FaultPolicy::Handler : emu::FaultPolicy::Stop;
    if (root.has("stimuli"))
        for (const auto& n : root["stimuli"].items()) m.stimuli.push_back(parse_stimulus(n));
    if (root.has("seed")) m.seed = root["seed"].integer();
    if (root.has("timing")) parse_timing(root["timing"], m);
    parse_rtos(root["rtos"], m.rtos, sc.rtos_preset);
    parse_semihosting(root["semihosting"], m.semihosting);
    const config::Node out = root["outputs"];
    std::vector<std::string> outputs(std::begin(kRunOutputs), std::end(kRunOutputs));
    outputs.insert(outputs.end(), std::begin(kRunOutputSettings), std::end(kRunOutputSettings));
    for (const auto& k : registry.outputs()) outputs.push_back(k);
    out.allow_only(outputs);
    if (out.defined())
        for (const auto& [key, value] : out.entries()) sc.outputs[key] = value.str();
    if (root.has("firmware")) {
        std::string fw = root["firmware"].str();
        bool is_path = fw.find('/') != std::string::npos || fw.ends_with(".elf");
        sc.firmware = is_path ? (std::filesystem::path(root.file()).parent_path() / fw).string() : fw;
    }
    const config::Node ue = root["user_events"];
    ue.allow_only({"function"});
    if (ue.has("function")) m.user_event_function = ue["function"].str();
    return sc;
}

}  // namespace

Scenario load_scenario(const config::Node& root, const AnalysisRegistry& registry) {
    return read_scenario(root, registry, nullptr);
}

ScenarioPrototype::ScenarioPrototype(config::Node root, const AnalysisRegistry& registry) : root_(std::move(root)), registry_(registry) {
    if (root_.is_map() && root_.has("svd")) svd_ = std::make_shared<const decode::svd::Device>(read_scenario_svd(root_["svd"]));
}

Scenario ScenarioPrototype::make() const {
    return read_scenario(root_, registry_, svd_.get());
}

Scenario load_scenario_file(const std::string& path, const AnalysisRegistry& registry) {
    return load_scenario(config::Node::load_file(path), registry);
}

void take_rtos_preset(Scenario& scenario, const decode::ElfImage& image) {
    const decode::RtosPreset* preset = decode::find_rtos_preset(scenario.rtos_preset);
    if (!preset) return;
    emu::RtosConfig& r = scenario.machine.rtos;
    r.current_thread = preset->current_thread;
    if (!image.symbols().address_of(preset->current_thread))
        throw ConfigError(image.path() + ": rtos: " + preset->name + ": no symbol " + preset->current_thread + " (is this a " + preset->name +
                          " application?)");
    decode::DwarfTypes types(image.path());
    auto name = types.member(preset->thread_type, preset->name_member);
    if (!name)
        throw ConfigError(image.path() + ": rtos: " + preset->name + ": no " + preset->thread_type + "." + preset->name_member +
                          " in the ELF's DWARF, where the threads' names are (build with -g, or give rtos: {current_thread, name_offset})");
    r.name_offset = name->offset;
    if (name->array_length) r.name_length = std::min<std::uint32_t>(name->array_length, 256);
    if (!preset->stack_member.empty())
        if (auto stack = types.member(preset->thread_type, preset->stack_member)) r.stack_offset = stack->offset;
}

void take_core_built_for(Scenario& scenario, const decode::ElfImage& image, bool cpu_option) {
    if (scenario.core_given || cpu_option) return;
    if (auto core = models::core_built_for(image.build()); core && core->kind != scenario.machine.core.kind) {
        scenario.machine.core = *core;
        scenario.core_from_elf = true;
    }
}

Scenario default_scenario(const std::vector<std::string>& settings) {
    return load_scenario(config::Node::load_string(std::string(kDefaultBoardYaml), "built-in mps2-an385 scenario").with_settings(settings));
}

emu::TimingMode timing_option(const std::string& value) {
    if (auto mode = emu::timing_mode_named(value)) return *mode;
    throw ConfigError("--timing: expected trm, pipeline or none, got '" + value + "'");
}

std::vector<std::string> board_preset_names() {
    std::vector<std::string> names;
    for (const auto& p : kBoardPresets) names.emplace_back(p.name);
    return names;
}

config::Node load_board(const std::string& name_or_file) {
    for (const auto& p : kBoardPresets)
        if (p.name == name_or_file) return config::Node::load_string(std::string(p.yaml), "board preset " + name_or_file);
    std::error_code ec;
    bool looks_like_file = name_or_file.find('/') != std::string::npos || name_or_file.ends_with(".yaml") || name_or_file.ends_with(".yml");
    if (looks_like_file || std::filesystem::is_regular_file(name_or_file, ec)) return config::Node::load_file(name_or_file);
    std::string known;
    for (const auto& p : kBoardPresets) known += (known.empty() ? "" : ", ") + std::string(p.name);
    throw ConfigError("unknown board '" + name_or_file + "' (presets: " + known + "; or a scenario file's path)");
}

}  // namespace emutrace::session
