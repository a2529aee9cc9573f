#include "session/svd_section.h"

#include <algorithm>
#include <filesystem>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"
#include "emutrace/config_error.h"
#include "session/board_files.h"

namespace emutrace::session {
namespace {

// The core's own Private Peripheral Bus (ITM, DWT, FPB, the System Control Space): the machine
// models them; an SVD's NVIC, SCB and SysTick entries describe the same registers.
constexpr std::uint32_t kCorePpbBase = 0xE0000000u, kCorePpbEnd = 0xE0040000u;

bool is_core_peripheral(const decode::svd::Peripheral& p) {
    return p.base >= kCorePpbBase && p.base < kCorePpbEnd;
}

// The interrupt lines a device raises: the SVD's, unless the entry gives `irq:` as a number, a
// list of numbers, or a mapping of names to numbers (where the SVD lists them wrong or not at all).
void take_irqs(const config::Node& n, decode::svd::Peripheral* svd, emu::DeviceConfig& d) {
    std::vector<decode::svd::Interrupt> lines;
    if (n.has("irq")) {
        const config::Node irq = n["irq"];
        auto number = [](const config::Node& v) {
            std::uint64_t i = v.integer();
            if (i > 495) v.fail("external interrupt numbers go from 0 to 495");
            return static_cast<unsigned>(i);
        };
        if (irq.is_map()) {
            for (const auto& [name, v] : irq.entries()) lines.push_back({name, number(v)});
        } else if (irq.is_scalar()) {
            lines.push_back({d.name, number(irq)});
        } else {
            for (const auto& v : irq.items()) lines.push_back({d.name, number(v)});
        }
        if (svd) svd->interrupts = lines;
    } else if (svd) {
        lines = svd->interrupts;
    }
    if (lines.empty()) return;
    d.irq = static_cast<int>(lines[0].number);
    for (std::size_t i = 1; i < lines.size(); ++i) d.more_irqs.push_back(static_cast<int>(lines[i].number));
}

}  // namespace

decode::svd::Device read_scenario_svd(const config::Node& section) {
    if (section.is_scalar()) return read_scenario_svd_file(section);
    section.allow_only({"file", "peripherals", "exclude", "rules"});
    section.require({"file"});
    return read_scenario_svd_file(section["file"]);
}

emu::DeviceConfig parse_device(const config::Node& n, const decode::svd::Device* svd) {
    n.allow_only({"name", "type", "base", "irq", "params"});
    n.require({"name", "type"});
    emu::DeviceConfig d;
    d.name = n["name"].str();
    d.type = n["type"].str();
    std::optional<decode::svd::Peripheral> described;
    if (svd)
        if (const auto* p = svd->peripheral(d.name)) described = *p;
    if (!n.has("base") && !described)
        n.fail("a peripheral needs `base` (or a name the scenario's SVD describes" + std::string(svd ? ", which '" + d.name + "' is not)" : ")"));
    d.base = n.has("base") ? n["base"].u32() : described->base;
    if (described) described->base = d.base;
    take_irqs(n, described ? &*described : nullptr, d);
    d.model = emu::make_peripheral(n["type"], n["params"], described ? &*described : nullptr);
    return d;
}

void add_svd_devices(const config::Node& section, const decode::svd::Device& svd, emu::MachineConfig& m) {
    std::vector<std::string> take, exclude;
    if (section.is_map()) {
        if (section.has("peripherals") && !(section["peripherals"].is_scalar() && section["peripherals"].str() == "all"))
            for (const auto& p : section["peripherals"].items()) take.push_back(p.str());
        if (section.has("exclude"))
            for (const auto& p : section["exclude"].items()) exclude.push_back(p.str());
        for (const auto& [key, list] :
             std::vector<std::pair<const char*, const std::vector<std::string>*>>{{"peripherals", &take}, {"exclude", &exclude}})
            for (const auto& name : *list)
                if (!svd.peripheral(name)) section[key].fail("the SVD (" + svd.file + ") has no peripheral '" + name + "'");
    }
    auto declared = [&](const std::string& name) {
        return std::any_of(m.devices.begin(), m.devices.end(), [&](const emu::DeviceConfig& d) { return d.name == name; });
    };
    for (const auto& p : svd.peripherals) {
        if (is_core_peripheral(p) || declared(p.name) || p.registers.empty()) continue;
        if (!take.empty() && std::find(take.begin(), take.end(), p.name) == take.end()) continue;
        if (std::find(exclude.begin(), exclude.end(), p.name) != exclude.end()) continue;
        emu::DeviceConfig d;
        d.name = p.name;
        d.type = "svd";
        d.base = p.base;
        if (!p.interrupts.empty()) {
            d.irq = static_cast<int>(p.interrupts[0].number);
            for (std::size_t i = 1; i < p.interrupts.size(); ++i) d.more_irqs.push_back(static_cast<int>(p.interrupts[i].number));
        }
        d.model = emu::make_svd_registers(p);
        m.devices.push_back(std::move(d));
    }
    if (!section.is_map() || !section.has("rules")) return;
    for (const auto& rule : section["rules"].items()) {
        const config::Node at = rule.has("field") ? rule["field"] : rule["register"];
        if (!at.defined()) rule.fail("a rule names the `field` (PERIPHERAL.REGISTER.FIELD) or `register` it acts on");
        const std::string path = at.str();
        const auto dot = path.find('.');
        const std::string device = path.substr(0, dot);
        auto it = std::find_if(m.devices.begin(), m.devices.end(), [&](const emu::DeviceConfig& d) { return d.name == device; });
        auto* regs = it == m.devices.end() ? nullptr : dynamic_cast<emu::RegisterPeripheral*>(it->model.get());
        if (!regs || dot == std::string::npos) at.fail("'" + path + "' names no register of a device the SVD describes (PERIPHERAL.REGISTER.FIELD)");
        regs->add_rule(rule, path.substr(dot + 1));
    }
}

}  // namespace emutrace::session
