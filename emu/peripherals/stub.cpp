// A device whose registers the scenario describes: how users stand in for sensors, actuators and
// security chips. Per register: reset value, access, a sequence of values successive reads
// return, values that change at a given cycle, side effects of a write, and read latency.

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

enum class RegAccess : std::uint8_t { ReadWrite, ReadOnly, WriteOnly };

/// A change to apply to a register: a constant, or the value just written to the trigger.
struct Effect {
    std::size_t target = 0;
    std::optional<std::uint32_t> value;  ///< nullopt = the written value
    std::uint64_t delay = 0;             ///< cycles after the write
};

struct Register {
    std::string name;
    std::uint32_t offset = 0;
    std::uint32_t reset = 0;
    RegAccess access = RegAccess::ReadWrite;
    std::vector<std::uint32_t> sequence;
    bool wrap = false;
    std::uint32_t read_latency = 0;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> schedule;  ///< (cycle, value), by cycle
    std::vector<Effect> on_write;
    // state
    std::uint32_t value = 0;
    std::size_t next = 0;
};

struct Pending {
    std::uint64_t due;
    std::size_t target;
    std::uint32_t value;
};

class Stub final : public Peripheral {
public:
    Stub(std::uint32_t size, std::vector<Register> regs) : size_(size), regs_(std::move(regs)) { reset(); }

    std::uint32_t size() const override { return size_; }

    void reset() override {
        pending_.clear();
        for (std::size_t i = 0; i < regs_.size(); ++i) {
            auto& r = regs_[i];
            r.value = r.reset;
            r.next = 0;
            for (const auto& [at, v] : r.schedule) pending_.push_back({at, i, v});
        }
        sort_pending();
    }

    std::uint32_t read(std::uint32_t offset, unsigned width) override {
        Register* r = find(offset);
        if (!r) {
            host().warn_once(offset, "read of an offset the stub does not declare; reads 0");
            return 0;
        }
        apply_due();
        if (r->read_latency) host().stall(r->read_latency);
        if (r->access == RegAccess::WriteOnly) {
            host().warn_once(offset, "read of write-only register " + r->name + "; reads 0");
            return 0;
        }
        std::uint32_t v = r->value;
        if (!r->sequence.empty() && (offset & 3) == 0) {
            v = r->sequence[std::min(r->next, r->sequence.size() - 1)];
            r->next = r->next + 1 < r->sequence.size() ? r->next + 1 : (r->wrap ? 0 : r->sequence.size() - 1);
            r->value = v;
        }
        return lane(v, offset, width);
    }

    void write(std::uint32_t offset, unsigned width, std::uint32_t value) override {
        Register* r = find(offset);
        if (!r) {
            host().warn_once(offset, "write to an offset the stub does not declare; ignored");
            return;
        }
        apply_due();
        if (r->access == RegAccess::ReadOnly) {
            host().warn_once(offset, "write to read-only register " + r->name + "; ignored");
            return;
        }
        unsigned shift = (offset & 3) * 8;
        std::uint32_t mask = width >= 4 ? 0xffffffffu : ((1u << (width * 8)) - 1) << shift;
        r->value = (r->value & ~mask) | ((value << shift) & mask);
        for (const auto& e : r->on_write) {
            std::uint32_t v = e.value.value_or(r->value);
            if (e.delay == 0)
                regs_[e.target].value = v;
            else
                pending_.push_back({host().now() + e.delay, e.target, v});
        }
        sort_pending();
    }

    bool has_register(std::string_view name) const override {
        return std::any_of(regs_.begin(), regs_.end(), [&](const Register& r) { return r.name == name; });
    }

    void set_register(std::string_view name, std::uint32_t value) override {
        for (auto& r : regs_) {
            if (r.name != name) continue;
            r.value = value;
            r.sequence.clear();  // a value set from outside replaces any scripted sequence
        }
    }

private:
    Register* find(std::uint32_t offset) {
        for (auto& r : regs_)
            if ((offset & ~3u) == r.offset) return &r;
        return nullptr;
    }

    static std::uint32_t lane(std::uint32_t v, std::uint32_t offset, unsigned width) {
        v >>= (offset & 3) * 8;
        return width >= 4 ? v : v & ((1u << (width * 8)) - 1);
    }

    void sort_pending() {
        std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) { return a.due < b.due; });
    }

    void apply_due() {
        std::uint64_t now = host().now();
        std::size_t n = 0;
        while (n < pending_.size() && pending_[n].due <= now) {
            regs_[pending_[n].target].value = pending_[n].value;
            ++n;
        }
        pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
    }

    std::uint32_t size_;
    std::vector<Register> regs_;
    std::vector<Pending> pending_;
};

std::size_t index_of(const std::vector<Register>& regs, const std::string& name, const config::Node& at) {
    for (std::size_t i = 0; i < regs.size(); ++i)
        if (regs[i].name == name) return i;
    at.fail("no register named '" + name + "' in this stub");
}

Register parse_register(const config::Node& n, std::uint32_t size, std::uint32_t default_latency) {
    n.allow_only({"name", "offset", "reset", "access", "sequence", "then", "schedule", "on_write", "read_latency"});
    n.require({"name", "offset"});
    Register r;
    r.name = n["name"].str();
    r.offset = n["offset"].u32();
    if (r.offset % 4 != 0 || r.offset + 4 > size) n["offset"].fail("must be word-aligned and inside the stub's size");
    if (n.has("reset")) r.reset = n["reset"].u32();
    if (n.has("access")) {
        std::string a = n["access"].choice({"rw", "ro", "wo"});
        r.access = a == "ro" ? RegAccess::ReadOnly : a == "wo" ? RegAccess::WriteOnly : RegAccess::ReadWrite;
    }
    if (n.has("sequence")) {
        for (const auto& v : n["sequence"].items()) r.sequence.push_back(v.u32());
        if (r.sequence.empty()) n["sequence"].fail("must list at least one value");
    }
    if (n.has("then")) r.wrap = n["then"].choice({"hold", "wrap"}) == "wrap";
    r.read_latency = n.has("read_latency") ? n["read_latency"].u32() : default_latency;
    if (n.has("schedule")) {
        for (const auto& step : n["schedule"].items()) {
            step.allow_only({"at", "value"});
            step.require({"at", "value"});
            r.schedule.emplace_back(step["at"].integer(), step["value"].u32());
        }
    }
    return r;
}

// on_write: {TARGET: 5 | written | {value: 5|written, after: 100}}
void parse_effects(const config::Node& n, std::vector<Register>& regs, Register& r) {
    for (const auto& [target, spec] : n.entries()) {
        Effect e;
        config::Node value = spec;
        if (spec.is_map()) {
            spec.allow_only({"value", "after"});
            value = spec["value"];
            if (spec.has("after")) e.delay = spec["after"].integer();
        }
        e.target = index_of(regs, target, spec);
        if (value.str() != "written") e.value = value.u32();
        r.on_write.push_back(e);
    }
}

}  // namespace

std::unique_ptr<Peripheral> make_stub(const config::Node& params) {
    params.allow_only({"size", "read_latency", "registers"});
    params.require({"size"});
    std::uint64_t size = params["size"].size();
    if (size == 0 || size > 0x1000'0000) params["size"].fail("must be between 1 byte and 256 MiB");
    std::uint32_t latency = params.has("read_latency") ? params["read_latency"].u32() : 0;
    std::vector<Register> regs;
    std::vector<config::Node> nodes;
    if (params.has("registers")) nodes = params["registers"].items();
    for (const auto& n : nodes) {
        regs.push_back(parse_register(n, static_cast<std::uint32_t>(size), latency));
        for (std::size_t i = 0; i + 1 < regs.size(); ++i)
            if (regs[i].offset == regs.back().offset || regs[i].name == regs.back().name)
                n.fail("register " + regs.back().name + " clashes with " + regs[i].name + " (same name or offset)");
    }
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].has("on_write")) parse_effects(nodes[i]["on_write"], regs, regs[i]);
    return std::make_unique<Stub>(static_cast<std::uint32_t>(size), std::move(regs));
}

}  // namespace emutrace::emu
