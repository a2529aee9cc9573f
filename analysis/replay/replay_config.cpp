#include "analysis/replay/replay_config.h"

#include <fnmatch.h>

#include "config/units.h"
#include "decode/dwarf_types.h"
#include "decode/elf_image.h"
#include "decode/in_tree_setup.h"
#include "decode/instruction_decoder.h"
#include "decode/program.h"
#include "decode/rtos_preset.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::replay {
namespace {

const std::pair<const char*, Operation> kRoles[] = {
    {"lock", Operation::Lock},     {"unlock", Operation::Unlock}, {"send", Operation::Send},   {"receive", Operation::Receive},
    {"create", Operation::Create}, {"delete", Operation::Delete}, {"delay", Operation::Delay}, {"yield", Operation::Yield},
};

// The addresses of a function's return instructions: the last instruction of each block that
// returns; none when it can leave otherwise (a tail call or an indirect branch: what it does would
// end in another function) or never returns.
std::vector<std::uint32_t> watchable_returns(const decode::ElfImage& image, const decode::Function& f) {
    decode::InstructionDecoder decoder(f.isa);
    std::vector<std::uint32_t> out;
    for (const auto& b : f.blocks) {
        if (b.exit == decode::BlockExit::TailCall || b.exit == decode::BlockExit::Indirect || b.falls_out) return {};
        if (b.exit != decode::BlockExit::Return) continue;
        std::vector<std::uint8_t> bytes = image.bytes_at(b.start, b.end - b.start);
        std::vector<decode::Instruction> insns = decoder.decode(bytes, b.start);
        if (!insns.empty()) out.push_back(insns.back().address);
    }
    return out;
}

// An acquisition's returns, where it happens; fails on a function whose end cannot be watched.
std::vector<std::uint32_t> returns_of(const decode::ElfImage& image, const decode::Function& f, const config::Node& where) {
    std::vector<std::uint32_t> out = watchable_returns(image, f);
    if (out.empty())
        where.fail(f.name + " can leave other than by a return (a tail call or an indirect branch), or never returns: its end cannot be watched");
    return out;
}

std::optional<Operation> role_named(const std::string& role) {
    for (const auto& [name, op] : kRoles)
        if (role == name) return op;
    return std::nullopt;
}

}  // namespace

const decode::RtosPreset* rtos_preset(const AnalysisSetup& setup) {
    config::Node rtos = setup.section("rtos");
    return rtos.defined() && rtos.is_scalar() ? decode::find_rtos_preset(rtos.str()) : nullptr;
}

bool has_replay_config(const AnalysisSetup& setup) {
    return setup.section("replay").defined() || rtos_preset(setup);
}

std::vector<std::string> kernel_functions(const AnalysisSetup& setup) {
    const decode::RtosPreset* preset = rtos_preset(setup);
    return preset ? decode::DwarfTypes(setup.firmware()).functions_of(preset->kernel_files) : std::vector<std::string>{};
}

namespace {

// The kernel's calls the firmware has, with their roles (an application links what it uses),
// from the RTOS preset; their returns too, where they can be watched: the kernel's calls inside
// it are its own. `first_delay`: where a thread can be held.
void watch_preset_calls(const AnalysisSetup& setup, const decode::Program& program, RecorderConfig& c, std::optional<HoldCall>& first_delay) {
    const decode::RtosPreset* preset = rtos_preset(setup);
    if (!preset) return;
    const config::Node where = setup.section("rtos");  // a preset's call that cannot be watched fails here
    for (const decode::RtosCall& call : preset->calls) {
        const decode::Function* f = program.function(call.function);
        if (!f) continue;
        WatchedCall w{role_named(call.role).value_or(Operation::Send), false, call.function, role_named(call.role_without_item),
                      call.object_is_caller};
        std::vector<std::uint32_t> returns =
            is_acquisition(w.op) ? returns_of(in_tree(setup).image(), *f, where) : watchable_returns(in_tree(setup).image(), *f);
        w.returns_watched = !returns.empty();
        c.watches.emplace(f->start, w);
        w.at_return = true;
        for (std::uint32_t at : returns) c.watches.emplace(at, w);
        if (call.holds && !first_delay) first_delay = HoldCall{f->start, 1, call.function};
    }
}

// The section's functions by role (lock: [...], send: [...], ...).
void watch_named_calls(const AnalysisSetup& setup, const config::Node& n, const decode::Program& program, RecorderConfig& c,
                       std::optional<HoldCall>& first_yield, std::optional<HoldCall>& first_delay) {
    for (const auto& [role, op] : kRoles) {
        if (!n.has(role)) continue;
        for (const config::Node& item : n[role].items()) {
            const std::string name = item.str();
            const decode::Function* f = program.function(name);
            if (!f) item.fail("no function '" + name + "' with a size in " + setup.firmware() + "'s symbol table");
            const Operation operation = op;  // a copy: clang 14 cannot capture a structured binding
            auto add = [&](std::uint32_t at, bool at_return) {
                if (!c.watches.emplace(at, WatchedCall{.op = operation, .at_return = at_return, .function = name}).second)
                    item.fail(name + " is named twice in replay: (or is the RTOS preset's)");
            };
            add(f->start, false);
            if (is_acquisition(op))
                for (std::uint32_t at : returns_of(in_tree(setup).image(), *f, item)) add(at, true);
            if (op == Operation::Yield && !first_yield) first_yield = HoldCall{f->start, 0, name};
            if (op == Operation::Delay && !first_delay) first_delay = HoldCall{f->start, 1, name};
        }
    }
}

InterruptEvents interrupt_events(const config::Node& n) {
    if (!n.has("interrupts")) return InterruptEvents::External;
    const std::string v = n["interrupts"].str();
    if (v == "external") return InterruptEvents::External;
    if (v == "all") return InterruptEvents::All;
    if (v == "none") return InterruptEvents::None;
    n["interrupts"].fail("interrupts: expected external (the default), all or none, got '" + v + "'");
}

}  // namespace

ReplaySection parse_replay_section(const AnalysisSetup& setup, const config::Node& n) {
    std::vector<std::string> keys = {"inputs", "interrupts", "hold", "instrumentation"};
    for (const auto& [role, op] : kRoles) keys.push_back(role);
    n.allow_only(keys);
    ReplaySection out;
    RecorderConfig& c = out.calls;
    const decode::Program& program = in_tree(setup).program();
    std::optional<HoldCall> first_yield, first_delay;
    watch_preset_calls(setup, program, c, first_delay);
    watch_named_calls(setup, n, program, c, first_yield, first_delay);
    if (n.has("inputs"))
        for (const config::Node& item : n["inputs"].items()) c.input_devices.push_back(item.str());
    c.interrupts = interrupt_events(n);
    std::vector<std::string> instrumentation = {"er_*"};
    if (n.has("instrumentation")) {
        instrumentation.clear();
        for (const config::Node& item : n["instrumentation"].items()) instrumentation.push_back(item.str());
    }
    out.instrumentation = function_ranges(program, instrumentation);
    out.site_cycles = default_site_cycles(setup.cycle_model());
    if (auto text = setup.flag("site-cycles")) {
        auto v = config::parse_integer(*text);
        if (!v || *v > 1000) throw ConfigError("--site-cycles: expected a small count of cycles, got '" + *text + "'");
        out.site_cycles = static_cast<std::uint32_t>(*v);
    }
    if (c.watches.empty() && c.input_devices.empty())
        n.fail(
            "replay: names nothing to record: no synchronisation function (lock, unlock, send, receive, create, delete, delay, yield) and no input "
            "device");
    // Where replay holds a thread: `hold: FUNCTION` (called with r0 = 1), else the first yield,
    // else the first delay with one tick.
    if (n.has("hold")) {
        const std::string name = n["hold"].str();
        const decode::Function* f = program.function(name);
        if (!f) n["hold"].fail("no function '" + name + "' with a size in " + setup.firmware() + "'s symbol table");
        out.hold = HoldCall{f->start, 1, name};
    } else {
        out.hold = first_yield ? first_yield : first_delay;
    }
    return out;
}

std::uint32_t default_site_cycles(std::string_view cycle_model) {
    // bench_replay's fit on seeds 1-10 per model, rounded; its seeds 11-20 and the RTOS validate.
    constexpr std::pair<std::string_view, std::uint32_t> kFitted[] = {{"trm", 2}, {"pipeline", 5}, {"none", 2}};
    for (const auto& [model, cycles] : kFitted)
        if (model == cycle_model) return cycles;
    return 2;
}

AddressRanges function_ranges(const decode::Program& program, const std::vector<std::string>& globs) {
    AddressRanges out;
    for (const decode::Function& f : program.functions())
        for (const auto& g : globs)
            if (fnmatch(g.c_str(), f.name.c_str(), 0) == 0) {
                out.emplace_back(f.start, f.end);
                break;
            }
    return out;
}

std::vector<std::uint32_t> watch_addresses(const RecorderConfig& calls) {
    std::vector<std::uint32_t> out;
    for (const auto& [at, call] : calls.watches) out.push_back(at);
    return out;
}

}  // namespace emutrace::analysis::replay
