#include "sources/ring/ring_trace.h"

#include "config/json_text.h"

#include <algorithm>
#include <cstring>

#include "config/little_endian.h"
#include "config/units.h"
#include "decode/elf_image.h"
#include "emutrace/config_error.h"
#include "trace/event_recorder.h"

#include <nlohmann/json.hpp>

namespace emutrace::decode {
namespace {

constexpr std::size_t kHeaderBytes = 32, kEventBytes = 21;
constexpr std::uint32_t kHandlerThread = 0xFFFFFF00u;
enum Kind : std::uint8_t { kEntry = 1, kExit = 2, kCustom = 3, kSwitch = 4 };

using config::read_le16;
using config::read_le32;

struct Found {
    const DumpSegment* segment = nullptr;
    std::size_t at = 0;  ///< the header's offset in the segment
};

// The ring's header: its magic, a version this decoder reads, sizes that fit the segment.
Found find_ring(const MemoryDump& dump, const std::string& name) {
    std::string rejected;
    for (const DumpSegment& seg : dump.segments()) {
        const auto& b = seg.bytes;
        for (std::size_t at = 0; at + kHeaderBytes <= b.size(); at += 4) {
            if (std::memcmp(b.data() + at, "EMUTRING", 8) != 0) continue;
            const std::uint8_t* h = b.data() + at;
            const std::string where = name + ": ring at " + config::hex32(seg.base + static_cast<std::uint32_t>(at));
            if (read_le16(h + 8) != 1)
                rejected = where + ": version " + std::to_string(read_le16(h + 8)) + ", this emutrace reads version 1";
            else if (read_le16(h + 10) != kHeaderBytes || read_le16(h + 12) != kEventBytes)
                rejected = where + ": header of " + std::to_string(read_le16(h + 10)) + " bytes with events of " + std::to_string(read_le16(h + 12)) +
                           " (expected 32 and 21)";
            else if (read_le32(h + 16) == 0 || read_le32(h + 20) >= read_le32(h + 16))
                rejected = where + ": write index " + std::to_string(read_le32(h + 20)) + " is outside the ring of " +
                           std::to_string(read_le32(h + 16)) + " events";
            else
                return {&seg, at};
        }
    }
    if (!rejected.empty()) throw ConfigError(rejected);
    throw ConfigError(name + ": no trace ring (EMUTRING header) in this " + dump.format() +
                      " dump: was the firmware built with firmware/ontarget/emutrace_trace.c and et_init() called?");
}

// Turns the ring's events, oldest first, into the event model.
class Translator {
public:
    Translator(trace::EventRecorder& out, const ElfImage& elf, const MemoryDump& dump, ThreadNames names, RingSummary& summary)
        : out_(out), elf_(elf), dump_(dump), names_(names), summary_(summary) {}

    void event(const std::uint8_t* e, std::uint64_t index) {
        const Kind kind = static_cast<Kind>(e[0]);
        const std::uint64_t cycle = read_le32(e + 1) | static_cast<std::uint64_t>(read_le32(e + 5)) << 32;
        const std::uint32_t thread = read_le32(e + 9), a = read_le32(e + 13), b = read_le32(e + 17);
        if (kind < kEntry || kind > kSwitch || ((kind == kEntry || kind == kExit) && !is_function(a))) {
            ++summary_.corrupt;
            return;
        }
        if (cycle) summary_.timestamps = true;
        // Without DWT_CYCCNT the events are numbered: order, not time. Stamps start at 0 and never
        // go back (a wrapped 32-bit counter the device missed).
        const std::uint64_t time = cycle ? cycle : index + 1;
        if (!first_) first_ = time;
        stamp_ = std::max(stamp_, time - std::min(*first_, time));
        context(thread);
        trace::Event ev{};
        ev.cycle = stamp_;
        switch (kind) {
            // A handler's own entry and exit have EXC_RETURN for a call site: the exception's
            // vector and its return, which the context events above already frame.
            case kEntry:
                ev.kind = trace::EventKind::Branch;
                ev.address = a;
                ev.value = static_cast<std::uint32_t>(is_exc_return(b) ? trace::BranchKind::Vector : trace::BranchKind::Call);
                ev.extra = is_exc_return(b) ? 0 : b & ~1u;  // where the caller resumes
                break;
            case kExit:
                ev.kind = trace::EventKind::Branch;
                ev.address = is_exc_return(b) ? 0 : b & ~1u;
                ev.value = static_cast<std::uint32_t>(trace::BranchKind::Return);
                ev.extra = a;
                break;
            case kCustom:
                ev.kind = trace::EventKind::Marker;
                ev.value = a;
                ev.extra = b;
                ev.width = 1;
                break;
            case kSwitch: switch_to(a, b); return;
        }
        out_.push(ev);
        // The handler's own exit ends its activation: the next one is another exception.
        if (kind == kExit && is_exc_return(b) && !handlers_.empty()) leave_handler();
        ++summary_.events;
        summary_.last_cycle = stamp_;
    }

private:
    static bool is_exc_return(std::uint32_t site) { return site >= 0xFFFFFFE0u; }
    bool is_function(std::uint32_t address) const {
        const Symbol* f = elf_.symbols().function_at(address);
        return f && f->address == address;
    }
    // Handler events are the handler's context; a thread's event leaves every handler.
    void context(std::uint32_t thread) {
        if (thread >= kHandlerThread) {
            const std::uint32_t n = thread & 0x1FF;
            if (!handlers_.empty() && handlers_.back() == n) return;
            if (std::find(handlers_.begin(), handlers_.end(), n) != handlers_.end()) {
                while (handlers_.back() != n) leave_handler();
                return;
            }
            handlers_.push_back(n);
            out_.push({stamp_, 0, n, 0, trace::EventKind::ExceptionEntry, 0, 0});
            return;
        }
        while (!handlers_.empty()) leave_handler();
        if (thread != thread_) switch_to(thread, thread_);
    }
    void leave_handler() {
        out_.push({stamp_, 0, handlers_.back(), 0xFFFFFFFDu, trace::EventKind::ExceptionReturn, 0, 0});
        handlers_.pop_back();
    }
    void switch_to(std::uint32_t thread, std::uint32_t previous) {
        if (thread == thread_) return;
        std::string name;
        if (names_.offset && thread) name = dump_name(thread + *names_.offset);
        trace::Event e{stamp_, thread, 0, previous, trace::EventKind::ThreadSwitch, 0, 0};
        e.channel = static_cast<std::uint16_t>(name.size());
        e.value = out_.keep_text(name);
        out_.push(e);
        thread_ = thread;
    }
    // A thread's name from its control block, as the dump holds it.
    std::string dump_name(std::uint32_t address) const {
        for (const DumpSegment& s : dump_.segments()) {
            if (address < s.base || address - s.base >= s.bytes.size()) continue;
            std::string name;
            for (std::size_t i = address - s.base; i < s.bytes.size() && name.size() < names_.length && s.bytes[i]; ++i)
                name.push_back(static_cast<char>(s.bytes[i]));
            return name;
        }
        return {};
    }

    trace::EventRecorder& out_;
    const ElfImage& elf_;
    const MemoryDump& dump_;
    ThreadNames names_;
    RingSummary& summary_;
    std::optional<std::uint64_t> first_;
    std::uint64_t stamp_ = 0;
    std::uint32_t thread_ = 0;
    std::vector<std::uint32_t> handlers_;
};

}  // namespace

SourceTotals RingTrace::deliver() {
    const MemoryDump dump = MemoryDump::load(dump_, base_);
    const Found ring = find_ring(dump, dump_);
    const std::vector<std::uint8_t>& b = ring.segment->bytes;
    const std::uint8_t* h = b.data() + ring.at;
    RingSummary& s = summary_;
    s = RingSummary{};
    s.dump = dump_;
    s.format = dump.format();
    s.address = ring.segment->base + static_cast<std::uint32_t>(ring.at);
    s.capacity = read_le32(h + 16);
    const std::uint32_t write_index = read_le32(h + 20);
    s.wraps = read_le32(h + 24);
    s.shadow_overflows = read_le32(h + 28);
    s.exits_by_return_address = read_le16(h + 14) & 1;
    // The slots the dump holds (a ring cut by the end of the dump keeps its first part).
    const std::size_t held = std::min<std::size_t>(s.capacity, (b.size() - ring.at - kHeaderBytes) / kEventBytes);
    auto slot = [&](std::uint32_t i) { return b.data() + ring.at + kHeaderBytes + static_cast<std::size_t>(i) * kEventBytes; };

    // A ring of another build names functions this ELF does not have: say so before any event.
    std::uint64_t calls = 0, strangers = 0;
    for (std::uint32_t i = 0; i < held; ++i) {
        const std::uint8_t* e = slot(i);
        if (e[0] != 1 && e[0] != 2) continue;
        ++calls;
        const Symbol* f = elf_.symbols().function_at(read_le32(e + 13));
        if (!f || f->address != read_le32(e + 13)) ++strangers;
    }
    if (calls && strangers * 10 > calls)
        throw ConfigError(dump_ + ": " + std::to_string(strangers) + " of the ring's " + std::to_string(calls) +
                          " entries and exits name no function of " + elf_.path() + ": the dump is of another firmware (wrong --elf?)");

    trace::EventRecorder recorder;
    for (auto* sink : sinks_) recorder.add_sink(*sink);
    trace::RunInfo info{"ringdump", elf_.path(), "", 0, {}, "", {}, {}, {}};
    recorder.start(info);
    Translator translate(recorder, elf_, dump, names_, s);
    // Oldest first: after a wrap, from the write index on (its slot may be half-written).
    std::uint64_t index = 0;
    auto take = [&](std::uint32_t from, std::uint32_t to) {
        for (std::uint32_t i = from; i < to && i < held; ++i, ++index) {
            if (slot(i)[0] == 0) {
                ++s.torn;
                continue;
            }
            translate.event(slot(i), index);
        }
    };
    if (s.wraps) take(write_index, s.capacity);
    take(0, write_index);
    recorder.push({s.last_cycle, 0, 0, 0, trace::EventKind::Stop, 0, 0});
    recorder.end();
    SourceTotals totals;
    totals.source = dump_;
    totals.cycles = s.last_cycle;
    totals.complete = true;
    return totals;
}

std::string RingTrace::summary() const {
    const RingSummary& s = summary_;
    std::string t = "emutrace: on-target trace ring in " + s.dump + " (" + s.format + ") at " + config::hex32(s.address) + "\n";
    t += "  events        " + config::grouped(s.events) + " of a ring of " + config::grouped(s.capacity) +
         (s.wraps ? " (wrapped " + config::grouped(s.wraps) + "x: the oldest were overwritten)" : "") + "\n";
    if (s.torn || s.corrupt) t += "  skipped       " + std::to_string(s.torn) + " torn at the head, " + std::to_string(s.corrupt) + " corrupt\n";
    if (s.shadow_overflows) t += "  exits lost    " + config::grouped(s.shadow_overflows) + " (a full shadow stack)\n";
    t += "  time          " +
         (s.timestamps ? config::grouped(s.last_cycle) + " cycles (DWT_CYCCNT)" : std::string("no timestamps: event order only")) +
         "\n  exits         " + (s.exits_by_return_address ? "by return-address manipulation" : "by the compiler's exit hook") + "\n";
    return t;
}

std::string RingTrace::json() const {
    const RingSummary& s = summary_;
    return config::json_text(nlohmann::json{{"dump", s.dump},
                                            {"format", s.format},
                                            {"ring", config::hex32(s.address)},
                                            {"capacity", s.capacity},
                                            {"wraps", s.wraps},
                                            {"events", s.events},
                                            {"torn", s.torn},
                                            {"corrupt", s.corrupt},
                                            {"timestamps", s.timestamps},
                                            {"cycles", s.last_cycle},
                                            {"shadow_overflows", s.shadow_overflows},
                                            {"exits_by_return_address", s.exits_by_return_address}});
}

}  // namespace emutrace::decode
