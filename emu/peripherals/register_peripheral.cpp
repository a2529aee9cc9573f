#include "emu/peripherals/register_peripheral.h"

#include <algorithm>

#include "emutrace/config_error.h"

namespace emutrace::emu {

namespace {
constexpr std::uint8_t kWatchStores = 1, kWatchLoads = 2;
}

RegisterPeripheral::RegisterPeripheral(decode::svd::Peripheral description)
    : regs_(std::move(description)), watched_(regs_.description().registers.size(), 0) {}

FieldRef RegisterPeripheral::need(std::string_view path) const {
    FieldRef f = regs_.field(path);
    if (!f) throw ConfigError("the SVD's " + regs_.description().name + " has no " + std::string(path) + ", which its model needs");
    return f;
}

std::uint32_t RegisterPeripheral::read(std::uint32_t offset, unsigned width) {
    const int r = regs_.at(offset);
    if (r < 0) {
        host().warn_once(offset, "read of an offset no register of " + regs_.description().name + " is at; reads 0");
        return 0;
    }
    if (!pending_.empty()) apply_due(host().now());
    if (!regs_.readable(r)) {
        host().warn_once(offset, "read of write-only register " + regs_.description().name + "." + regs_.name(r) + "; reads 0");
        return 0;
    }
    refresh(r);
    const std::uint32_t v = regs_.load(r, offset, width);
    loaded(r);
    if (watched_[static_cast<std::size_t>(r)] & kWatchLoads) after_load(r);
    return v;
}

void RegisterPeripheral::write(std::uint32_t offset, unsigned width, std::uint32_t value) {
    const int r = regs_.at(offset);
    if (r < 0) {
        host().warn_once(offset, "write to an offset no register of " + regs_.description().name + " is at; ignored");
        return;
    }
    if (!pending_.empty()) apply_due(host().now());
    if (!regs_.writable(r)) {
        host().warn_once(offset, "write to read-only register " + regs_.description().name + "." + regs_.name(r) + "; ignored");
        return;
    }
    refresh(r);
    const std::uint32_t before = regs_.value(r);
    regs_.store(r, offset, width, value);
    if (watched_[static_cast<std::size_t>(r)] & kWatchStores) after_store(r, before);
    stored(r, before);
}

void RegisterPeripheral::reset() {
    regs_.reset();
    pending_.clear();
    std::fill(sequence_.begin(), sequence_.end(), 0);
    for (const auto& rule : rules_)
        if (rule.kind == Rule::Kind::Fixed) regs_.put(rule.field, rule.value);
    reset_model();
}

void RegisterPeripheral::set_register(std::string_view name, std::uint32_t value) {
    if (FieldRef f = regs_.field(name)) {
        if (!pending_.empty()) apply_due(host().now());
        regs_.put(f, value);
        stored(f.reg, regs_.value(f.reg));
    }
}

void RegisterPeripheral::on_time(std::uint64_t now) {
    apply_due(now);
    tick(now);
}

void RegisterPeripheral::schedule(FieldRef f, std::uint32_t value, std::uint64_t after) {
    if (after == 0) {
        regs_.put(f, value);
        return;
    }
    Pending p{host().now() + after, f, value};
    pending_.insert(std::upper_bound(pending_.begin(), pending_.end(), p, [](const Pending& a, const Pending& b) { return a.due < b.due; }), p);
}

void RegisterPeripheral::apply_due(std::uint64_t now) {
    std::size_t n = 0;
    while (n < pending_.size() && pending_[n].due <= now) {
        regs_.put(pending_[n].field, pending_[n].value);
        ++n;
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
}

void RegisterPeripheral::after_store(int reg, std::uint32_t before) {
    const std::uint32_t now = regs_.value(reg);
    for (std::size_t i = 0; i < rules_.size(); ++i) {
        const Rule& rule = rules_[i];
        switch (rule.kind) {
            case Rule::Kind::Follows:
                if (rule.source.reg == reg && rule.source.of(before) != rule.source.of(now)) schedule(rule.field, rule.source.of(now), rule.after);
                break;
            case Rule::Kind::Settles:
                if (rule.field.reg == reg && rule.field.of(now) != rule.value) schedule(rule.field, rule.value, rule.after);
                break;
            case Rule::Kind::Fixed:
                if (rule.field.reg == reg) regs_.put(rule.field, rule.value);
                break;
            case Rule::Kind::SetBy:
                // A field as the source: the store must leave it non-zero (ADC1.CR2.SWSTART written 1).
                if (rule.source.reg == reg && (rule.source.mask == 0xffffffffu || rule.source.of(now) != 0)) {
                    schedule(rule.field, rule.value, rule.after);
                    sequence_[i] = 0;
                }
                break;
            case Rule::Kind::Output:
                if (rule.field.reg == reg) {
                    const char c = static_cast<char>(rule.field.of(now) & 0xff);
                    host().output(std::string_view(&c, 1));
                }
                break;
        }
    }
}

void RegisterPeripheral::after_load(int reg) {
    for (std::size_t i = 0; i < rules_.size(); ++i) {
        const Rule& rule = rules_[i];
        if (rule.cleared_by.empty()) continue;
        std::uint8_t& at = sequence_[i];
        if (rule.cleared_by[at] == reg) {
            if (++at < rule.cleared_by.size()) continue;
            regs_.put(rule.field, 0);
            at = 0;
        } else {
            at = rule.cleared_by[0] == reg ? 1 : 0;
        }
    }
}

void RegisterPeripheral::add_rule(const config::Node& n, const std::string& name) {
    n.allow_only({"field", "register", "follows", "after", "settles", "value", "set_by", "cleared_by", "output", "write"});
    const std::string& dev = regs_.description().name;
    auto field_named = [&](const config::Node& at, const std::string& path) {
        std::string local = path.rfind(dev + ".", 0) == 0 ? path.substr(dev.size() + 1) : path;
        FieldRef f = regs_.field(local);
        if (!f) at.fail("no field or register '" + at.str() + "' in the SVD's " + dev + " (rules act inside one peripheral)");
        return f;
    };
    Rule rule;
    rule.field = field_named(n.has("field") ? n["field"] : n["register"], name);
    if (n.has("write")) {  // what the SVD leaves out: ST's say read-write for rc_w0 flags
        if (n.entries().size() != 2) n.fail("a write rule says only how writing the field acts, e.g. {field: TIM2.SR.UIF, write: zeroToClear}");
        static const std::pair<const char*, decode::svd::WriteAction> kActions[] = {{"modify", decode::svd::WriteAction::Modify},
                                                                                    {"oneToClear", decode::svd::WriteAction::OneToClear},
                                                                                    {"oneToSet", decode::svd::WriteAction::OneToSet},
                                                                                    {"oneToToggle", decode::svd::WriteAction::OneToToggle},
                                                                                    {"zeroToClear", decode::svd::WriteAction::ZeroToClear},
                                                                                    {"zeroToSet", decode::svd::WriteAction::ZeroToSet},
                                                                                    {"zeroToToggle", decode::svd::WriteAction::ZeroToToggle},
                                                                                    {"clear", decode::svd::WriteAction::Clear},
                                                                                    {"set", decode::svd::WriteAction::Set}};
        std::string a = n["write"].str();
        for (const auto& [text, action] : kActions)
            if (a == text) {
                regs_.set_write_action(rule.field, action);
                return;
            }
        n["write"].fail(
            "expected an SVD modifiedWriteValues: modify, oneToClear, oneToSet, oneToToggle, zeroToClear, zeroToSet, zeroToToggle, clear, set");
    }
    int kinds = n.has("follows") + n.has("settles") + n.has("set_by") + n.has("output") + (n.has("value") && !n.has("settles") && !n.has("set_by"));
    if (kinds != 1) n.fail("a rule does exactly one of: follows, settles, set_by, value, output");
    if (n.has("after")) rule.after = n["after"].integer();
    if (n.has("follows")) {
        rule.kind = Rule::Kind::Follows;
        rule.source = field_named(n["follows"], n["follows"].str());
    } else if (n.has("settles")) {
        rule.kind = Rule::Kind::Settles;
        rule.value = n["settles"].u32();
    } else if (n.has("set_by")) {
        rule.kind = Rule::Kind::SetBy;
        rule.source = field_named(n["set_by"], n["set_by"].str());
        if (n.has("value")) rule.value = n["value"].u32();
        if (n.has("cleared_by")) {
            for (const auto& reg : n["cleared_by"].items()) rule.cleared_by.push_back(field_named(reg, reg.str()).reg);
            if (rule.cleared_by.empty() || rule.cleared_by.size() > 4)
                n["cleared_by"].fail("lists 1 to 4 registers whose reads, in order, clear the field");
        }
    } else if (n.has("output")) {
        rule.kind = Rule::Kind::Output;
        n["output"].choice({"console"});
    } else {
        rule.kind = Rule::Kind::Fixed;
        rule.value = n["value"].u32();
    }
    if (rule.kind != Rule::Kind::Output && rule.value > (rule.field.mask >> rule.field.lsb)) n.fail("the value does not fit the field");
    const int watched_store = rule.kind == Rule::Kind::Follows || rule.kind == Rule::Kind::SetBy ? rule.source.reg : rule.field.reg;
    watched_[static_cast<std::size_t>(watched_store)] |= kWatchStores;
    for (int r : rule.cleared_by) watched_[static_cast<std::size_t>(r)] |= kWatchLoads;
    if (rule.kind == Rule::Kind::Fixed) regs_.put(rule.field, rule.value);
    rules_.push_back(std::move(rule));
    sequence_.push_back(0);
}

}  // namespace emutrace::emu
