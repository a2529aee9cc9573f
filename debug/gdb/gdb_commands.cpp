// GdbStub's answers to GDB's commands, by family: queries, threads, registers, memory,
// breakpoints and watchpoints, resuming; and the target description and monitor commands.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "debug/gdb/gdb_stub.h"

namespace emutrace::debug::gdb {

namespace {

constexpr std::size_t kMostMemoryRead = 0x1000;  // bytes a packet of PacketSize 0x4000 carries back in hex
constexpr std::uint32_t kOnlyThread = 1;         // the thread id without an RTOS, or before its first thread runs

std::string xml_register(const char* name, unsigned bits, unsigned regnum, const char* type, const char* group) {
    char line[200];
    std::snprintf(line, sizeof line, "<reg name=\"%s\" bitsize=\"%u\" regnum=\"%u\" type=\"%s\" group=\"%s\"/>", name, bits, regnum, type, group);
    return line;
}

}  // namespace

std::uint32_t GdbStub::running_thread(const emu::DebugTarget& target) {
    for (const auto& t : target.threads())
        if (t.running) return t.id;
    return kOnlyThread;
}

std::string GdbStub::answer(emu::DebugTarget& target, const std::string& command, std::optional<emu::DebugResume>& resume) {
    const std::string_view c = command;
    if (c.empty()) return {};
    switch (c[0]) {
        case '?': return stop_reply(last_stop_);
        case 'q':
        case 'Q': return query(target, c);
        case 'H':
        case 'T': return thread_command(target, c);
        case 'g':
        case 'G':
        case 'p':
        case 'P': return register_command(target, c);
        case 'm':
        case 'M':
        case 'X': return memory_command(target, c);
        case 'Z':
        case 'z': return point_command(target, c);
        case 'b':
            if (c == "bs" || c == "bc") return reverse(target, c == "bc");
            return {};
        default: return resume_command(target, c, resume);
    }
}

std::string GdbStub::query(emu::DebugTarget& target, std::string_view c) {
    auto starts = [&](std::string_view prefix) { return c.substr(0, prefix.size()) == prefix; };
    if (starts("qSupported"))
        return std::string("PacketSize=4000;qXfer:features:read+;vContSupported+;QStartNoAckMode+;swbreak+;hwbreak+") +
               (reverse_ ? ";ReverseStep+;ReverseContinue+" : "");
    if (c == "QStartNoAckMode") {
        no_acks_after_reply_ = true;  // this reply is acknowledged the old way, then none is
        return "OK";
    }
    if (starts("qXfer:features:read:target.xml:")) {
        std::uint32_t offset = 0, length = 0;
        if (!address_length(c.substr(31), offset, length)) return "E01";
        const std::string xml = target_xml(target);
        if (offset >= xml.size()) return "l";
        const std::string part = xml.substr(offset, std::min<std::size_t>(length, 0x3f00));
        return (offset + part.size() >= xml.size() ? "l" : "m") + part;
    }
    if (c == "qAttached") return "1";
    if (c == "qC") return "QC" + hex_id(running_thread(target));
    if (c == "qfThreadInfo") {
        std::string list;
        for (const auto& t : target.threads()) list += (list.empty() ? "m" : ",") + hex_id(t.id);
        return list.empty() ? "m" + hex_id(kOnlyThread) : list;
    }
    if (c == "qsThreadInfo") return "l";
    if (starts("qThreadExtraInfo,")) {
        auto id = parse_hex(c.substr(17));
        if (!id) return "E01";
        for (const auto& t : target.threads())
            if (t.id == *id) return text_hex(t.name + (t.running ? " (running)" : " (switched out)"));
        return text_hex(target.threads().empty() ? "the core" : "unknown");
    }
    if (starts("qSymbol")) return "OK";
    if (starts("qRcmd,")) {
        auto text = from_hex(c.substr(6));
        if (!text) return "E01";
        console(monitor(target, *text));
        return "OK";
    }
    return {};
}

std::string GdbStub::thread_command(emu::DebugTarget& target, std::string_view c) {
    if (c.substr(0, 2) == "Hg") {  // the thread whose registers g, G, p and P read and write; 0 and -1: the running one
        if (c == "Hg0" || c == "Hg-1") {
            selected_ = 0;
            return "OK";
        }
        auto id = parse_hex(c.substr(2));
        if (!id || !thread_alive(target, static_cast<std::uint32_t>(*id))) return "E01";
        selected_ = *id == running_thread(target) ? 0 : static_cast<std::uint32_t>(*id);
        return "OK";
    }
    if (c[0] == 'H') return "OK";  // Hc: every thread resumes with the core
    auto id = parse_hex(c.substr(1));
    return id && thread_alive(target, static_cast<std::uint32_t>(*id)) ? "OK" : "E01";
}

std::string GdbStub::register_command(emu::DebugTarget& target, std::string_view c) {
    switch (c[0]) {
        case 'g': return c == "g" ? read_registers(target) : std::string();
        case 'G': {
            if (selected_) return "E01";  // a switched-out thread's saved context is read-only here
            std::string_view hex = c.substr(1);
            for (unsigned n = 0; n < target.registers() && !hex.empty(); ++n) {
                const unsigned bytes = target.register_bytes(n);
                if (hex.size() < 2 * bytes || !write_register(target, n, hex.substr(0, 2 * bytes))) return "E01";
                hex.remove_prefix(2 * bytes);
            }
            return "OK";
        }
        case 'p': {
            auto n = parse_hex(c.substr(1));
            if (!n || *n >= target.registers()) return "E01";
            return le_hex(register_value(target, static_cast<unsigned>(*n)), target.register_bytes(static_cast<unsigned>(*n)));
        }
        default: {  // P n=value
            const auto eq = c.find('=');
            auto n = eq == std::string_view::npos ? std::nullopt : parse_hex(c.substr(1, eq - 1));
            if (!n || *n >= target.registers() || selected_ || !write_register(target, static_cast<unsigned>(*n), c.substr(eq + 1))) return "E01";
            return "OK";
        }
    }
}

std::string GdbStub::memory_command(emu::DebugTarget& target, std::string_view c) {
    std::uint32_t address = 0, length = 0;
    if (c[0] == 'm') {
        if (!address_length(c.substr(1), address, length) || length > kMostMemoryRead) return "E01";
        std::vector<std::uint8_t> bytes(length);
        if (!target.read_memory(address, bytes)) return "E01";
        return to_hex(bytes);
    }
    std::string_view data;
    if (!address_length(c.substr(1), address, length, &data)) return "E01";
    std::string bytes;
    if (c[0] == 'M') {
        auto decoded = from_hex(data);
        if (!decoded) return "E01";
        bytes = *decoded;
    } else {
        bytes = std::string(data);  // X: binary, already unescaped
    }
    if (bytes.size() != length) return "E01";
    return target.write_memory(address, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size())) ? "OK" : "E01";
}

std::string GdbStub::point_command(emu::DebugTarget& target, std::string_view c) {
    if (c.size() <= 3) return {};
    const bool on = c[0] == 'Z';
    std::uint32_t address = 0, kind = 0;
    if (!address_length(c.substr(3), address, kind)) return "E01";
    if (c[1] == '0' || c[1] == '1') {
        if (!target.set_breakpoint(address, on)) return "E01";
        if (on)
            breakpoints_.insert(address & ~1u);
        else
            breakpoints_.erase(address & ~1u);
        return "OK";
    }
    if (c[1] < '2' || c[1] > '4') return "";
    const WatchSpec w{address, kind, c[1] == '2' ? emu::WatchKind::Write : c[1] == '3' ? emu::WatchKind::Read : emu::WatchKind::Access};
    if (!target.set_watchpoint(w.address, w.length, w.kind, on)) return "E01";
    std::erase(watches_, w);
    if (on) watches_.push_back(w);
    return "OK";
}

std::string GdbStub::resume_command(emu::DebugTarget& target, std::string_view c, std::optional<emu::DebugResume>& resume) {
    auto starts = [&](std::string_view prefix) { return c.substr(0, prefix.size()) == prefix; };
    if (c == "vCont?") return "vCont;c;C;s;S";
    if (starts("vCont;")) {  // the first action that applies to the one thread decides
        const char action = c.size() > 6 ? c[6] : 'c';
        if (action != 'c' && action != 'C' && action != 's' && action != 'S') return "E01";
        resume = (action == 's' || action == 'S') ? emu::DebugResume::Step : emu::DebugResume::Continue;
        return {};
    }
    if (c == "k" || starts("vKill")) {
        resume = emu::DebugResume::Kill;
        return "OK";
    }
    switch (c[0]) {
        case 'c':
        case 's':
        case 'C':
        case 'S': {
            // c [addr], s [addr]: resume at addr; C sig[;addr], S sig[;addr]: the signal means nothing here.
            std::string_view at = c.substr(1);
            if (c[0] == 'C' || c[0] == 'S') at = at.find(';') == std::string_view::npos ? std::string_view() : at.substr(at.find(';') + 1);
            if (!at.empty()) {
                auto pc = parse_hex(at);
                if (!pc || *pc > 0xffffffffu) return "E01";
                target.write_register(emu::kDebugPc, *pc);
            }
            resume = (c[0] == 's' || c[0] == 'S') ? emu::DebugResume::Step : emu::DebugResume::Continue;
            return {};
        }
        case 'D': resume = emu::DebugResume::Detach; return "OK";
        default: return {};  // not supported: GDB falls back or says so
    }
}

std::string GdbStub::read_registers(emu::DebugTarget& target) const {
    std::string out;
    for (unsigned n = 0; n < target.registers(); ++n) out += le_hex(register_value(target, n), target.register_bytes(n));
    return out;
}

std::uint64_t GdbStub::register_value(emu::DebugTarget& target, unsigned n) const {
    std::uint64_t value = 0;
    if (selected_ && target.thread_register(selected_, n, value)) return value;
    return target.read_register(n);  // the running thread's, and what a context switch does not save
}

bool GdbStub::thread_alive(const emu::DebugTarget& target, std::uint32_t id) {
    const auto threads = target.threads();
    if (threads.empty()) return id == kOnlyThread;
    for (const auto& t : threads)
        if (t.id == id) return true;
    return false;
}

bool GdbStub::write_register(emu::DebugTarget& target, unsigned n, std::string_view hex) {
    auto v = le_value(hex, target.register_bytes(n));
    if (!v) return false;
    target.write_register(n, *v);
    return true;
}

std::string GdbStub::monitor(emu::DebugTarget& target, const std::string& command) {
    char line[256];
    if (command == "cycles" || command == "time" || command == "summary") {
        std::snprintf(line, sizeof line, "cycles %llu, instructions %llu, emulated time %.6f s (%s)\n",
                      static_cast<unsigned long long>(target.cycles()), static_cast<unsigned long long>(target.instructions()),
                      target.emulated_seconds(), target.describe().c_str());
        return line;
    }
    if (command == "timing" || command == "model") return target.describe() + "\n";
    if (command == "reset") {
        if (!reverse_ || !no_reverse_.empty() || !copies_.kept_before(0))
            return "emutrace: monitor reset goes back to the start of a replay (emutrace replay LOG fw.elf --gdb PORT); "
                   "a run cannot be reset while attached: start it again\n";
        TravelPlan plan;
        plan.reset = true;
        go_back(target, plan, 0);
    }
    if (command == "history" && reverse_) {
        std::snprintf(line, sizeof line, "position %llu (instructions since reset); %zu moments kept to go back to, %llu instructions apart now\n",
                      static_cast<unsigned long long>(target.position()), copies_.kept(), static_cast<unsigned long long>(interval_));
        return line;
    }
    return "emutrace monitor commands:\n"
           "  monitor cycles    cycles, instructions and emulated time so far\n"
           "  monitor timing    the core, its clock and the cycle model in use\n"
           "  monitor reset     (replay) back to the first instruction, as a reset would\n"
           "  monitor history   (replay) the position, and the moments kept for reverse execution\n";
}

std::string GdbStub::target_xml(const emu::DebugTarget& target) const {
    static const char* const kCore[] = {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc"};
    std::string x = "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\"><target version=\"1.0\"><architecture>arm</architecture>";
    x += "<feature name=\"org.gnu.gdb.arm.m-profile\">";
    for (unsigned n = 0; n < 16; ++n) x += xml_register(kCore[n], 32, n, n == 13 ? "data_ptr" : n == 15 ? "code_ptr" : "uint32", "general");
    x += xml_register("xpsr", 32, emu::kDebugXpsr, "uint32", "general") + "</feature>";
    x += "<feature name=\"org.gnu.gdb.arm.m-system\">" + xml_register("msp", 32, emu::kDebugMsp, "data_ptr", "system") +
         xml_register("psp", 32, emu::kDebugMsp + 1, "data_ptr", "system") + "</feature>";
    x += "<feature name=\"org.emutrace.arm.m-masks\">";
    static const char* const kMasks[] = {"primask", "basepri", "faultmask", "control"};
    for (unsigned i = 0; i < 4; ++i) x += xml_register(kMasks[i], 32, emu::kDebugMsp + 2 + i, "uint32", "system");
    x += "</feature>";
    if (target.registers() > emu::kDebugFirstD) {
        x += "<feature name=\"org.gnu.gdb.arm.vfp\">";
        for (unsigned i = 0; i < 16; ++i) x += xml_register(("d" + std::to_string(i)).c_str(), 64, emu::kDebugFirstD + i, "ieee_double", "float");
        x += xml_register("fpscr", 32, emu::kDebugFpscr, "uint32", "float") + "</feature>";
    }
    return x + "</target>";
}

}  // namespace emutrace::debug::gdb
