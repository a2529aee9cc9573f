#include "debug/gdb/gdb_stub.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "emu/stop_signal.h"
#include "emutrace/config_error.h"

namespace emutrace::debug::gdb {

namespace {

constexpr std::size_t kMostMemoryRead = 0x1000;  // bytes a packet of PacketSize 0x4000 carries back in hex
constexpr std::uint32_t kOnlyThread = 1;         // the thread id without an RTOS, or before its first thread runs

std::string le_hex(std::uint64_t value, unsigned bytes) {
    std::uint8_t b[8];
    for (unsigned i = 0; i < bytes; ++i) b[i] = static_cast<std::uint8_t>(value >> (8 * i));
    return to_hex(std::span<const std::uint8_t>(b, bytes));
}

std::optional<std::uint64_t> le_value(std::string_view hex, unsigned bytes) {
    auto raw = from_hex(hex);
    if (!raw || raw->size() != bytes) return std::nullopt;
    std::uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>((*raw)[i])) << (8 * i);
    return v;
}

// "addr,length" (and what follows a ':' when `rest` is given).
bool address_length(std::string_view text, std::uint32_t& address, std::uint32_t& length, std::string_view* rest = nullptr) {
    const auto comma = text.find(',');
    if (comma == std::string_view::npos) return false;
    std::string_view len = text.substr(comma + 1);
    if (rest) {
        const auto colon = len.find(':');
        if (colon == std::string_view::npos) return false;
        *rest = len.substr(colon + 1);
        len = len.substr(0, colon);
    }
    auto a = parse_hex(text.substr(0, comma));
    auto l = parse_hex(len);
    if (!a || !l || *a > 0xffffffffu || *l > 0xffffffffu) return false;
    address = static_cast<std::uint32_t>(*a);
    length = static_cast<std::uint32_t>(*l);
    return true;
}

std::string text_hex(std::string_view text) {
    return to_hex(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

std::string hex_id(std::uint32_t id) {
    char text[12];
    std::snprintf(text, sizeof text, "%x", id);
    return text;
}

std::string xml_register(const char* name, unsigned bits, unsigned regnum, const char* type, const char* group) {
    char line[200];
    std::snprintf(line, sizeof line, "<reg name=\"%s\" bitsize=\"%u\" regnum=\"%u\" type=\"%s\" group=\"%s\"/>", name, bits, regnum, type, group);
    return line;
}

}  // namespace

GdbStub::GdbStub(const std::string& address, bool reverse, std::string no_reverse) : reverse_(reverse), no_reverse_(std::move(no_reverse)) {
    std::string host = "127.0.0.1", port = address;
    if (auto colon = address.rfind(':'); colon != std::string::npos) {
        host = address.substr(0, colon);
        port = address.substr(colon + 1);
    }
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 ||
        getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || !found)
        throw ConfigError("--gdb " + address + ": expected [HOST:]PORT, e.g. 3333 or 0.0.0.0:3333");
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int yes = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    const bool bound = listener_ >= 0 && ::bind(listener_, found->ai_addr, found->ai_addrlen) == 0 && ::listen(listener_, 1) == 0;
    const int err = errno;
    freeaddrinfo(found);
    if (!bound) {
        if (listener_ >= 0) ::close(listener_);
        throw ConfigError("--gdb " + address + ": cannot listen there: " + std::strerror(err));
    }
    sockaddr_in at{};
    socklen_t n = sizeof at;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&at), &n);
    char ip[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &at.sin_addr, ip, sizeof ip);
    listening_ = std::string(ip) + ":" + std::to_string(ntohs(at.sin_port));
}

GdbStub::~GdbStub() {
    if (client_ >= 0) ::close(client_);
    if (listener_ >= 0) ::close(listener_);
}

bool GdbStub::accept_client() {
    std::fprintf(stderr, "emutrace: waiting for GDB on %s (in GDB: target remote %s)\n", listening_.c_str(), listening_.c_str());
    std::fflush(stderr);
    while (!wait_readable(listener_)) {
        if (emu::stop_signal()) return false;  // Ctrl-C while waiting: the run stops as it would unattached
    }
    client_ = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client_ < 0) throw ConfigError("--gdb " + listening_ + ": accepting GDB's connection failed: " + std::strerror(errno));
    const int yes = 1;
    ::setsockopt(client_, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    return true;
}

// Whether `fd` has something to read within a fifth of a second: waits are cut so that a
// signal to stop the run is seen.
bool GdbStub::wait_readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 200) > 0;
}

bool GdbStub::receive(bool wait) {
    pollfd p{client_, POLLIN, 0};
    int ready = ::poll(&p, 1, 0);
    while (wait && ready == 0 && !emu::stop_signal()) {
        if (copies_.orphaned()) ::_exit(1);  // the run's supervisor has gone: so has the run
        ready = wait_readable(client_) ? 1 : 0;
    }
    if (ready <= 0) return !wait && (ready == 0 || errno == EINTR);  // a signal while waiting: as if GDB went
    std::uint8_t buffer[4096];
    const ssize_t n = ::recv(client_, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    reader_.feed(std::span<const std::uint8_t>(buffer, static_cast<std::size_t>(n)));
    return true;
}

void GdbStub::send_raw(std::string_view bytes) {
    while (!bytes.empty() && client_ >= 0) {
        const ssize_t n = ::send(client_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            return;  // GDB went away: the next receive says so
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

void GdbStub::send_packet(std::string_view payload) {
    send_raw(frame(payload));
}

bool GdbStub::interrupt_requested() {
    if (client_ < 0) return false;
    // Asked at every service of the machine: look at the socket every few milliseconds only.
    static constexpr auto kEvery = std::chrono::milliseconds(5);
    const auto now = std::chrono::steady_clock::now();
    if (now - last_poll_ < kEvery) return false;
    last_poll_ = now;
    if (copies_.orphaned()) ::_exit(1);  // the run's supervisor has gone: so has the run
    if (!receive(false)) return true;    // GDB went away: stop, and the stop finds out
    return reader_.take_interrupt();
}

emu::DebugResume GdbStub::stopped(emu::DebugTarget& target, const emu::DebugEvent& incoming) {
    emu::DebugEvent event = incoming;
    bool at_beginning = false, reset = false;
    if (travel_) {
        at_beginning = travel_->at_beginning;
        reset = travel_->reset;
        if (auto go_on = travelling(target, event)) return *go_on;
    }
    last_stop_ = event;
    stop_thread_ = running_thread(target);
    selected_ = 0;  // GDB selects again after a stop
    using Why = emu::DebugEvent::Why;
    if (event.why == Why::Attached) {
        if (reverse_) {  // before GDB connects: the supervisor is the process the shell started
            if (no_reverse_.empty()) no_reverse_ = travel::ProcessCopies::unavailable();
            if (no_reverse_.empty()) {
                copies_.supervise();
                target.keep_positions();
            }
        }
        if (!accept_client()) return emu::DebugResume::Detach;
    } else if (client_ >= 0) {
        // Why the run ended or faulted, on GDB's console, then the stop.
        const bool last = event.why == Why::Ended || event.why == Why::Fault || event.why == Why::Diverged;
        if (last && !event.message.empty()) console("emutrace: " + event.message + "\n");
        if (reset) {  // the answer to the monitor command that asked for it
            console("emutrace: back at reset, the replay's first instruction\n");
            send_packet("OK");
        } else {
            send_packet(at_beginning ? "T05replaylog:begin;thread:" + hex_id(stop_thread_) + ";" : stop_reply(event));
        }
    }
    if (event.why == Why::Ended || client_ < 0) return emu::DebugResume::Continue;  // nothing more to serve
    const emu::DebugResume resume = serve(target);
    if ((event.why == Why::Fault || event.why == Why::Diverged) && client_ >= 0 && resume != emu::DebugResume::Detach)
        send_packet(event.why == Why::Fault ? "X0b" : "X05");  // the run ends there: the program is gone for GDB
    return resume;
}

bool GdbStub::checkpoint(emu::DebugTarget& target) {
    if (!reverse_ || !no_reverse_.empty()) return false;
    static constexpr std::size_t kCopiesPerInterval = 32;  // then copies are kept twice as far apart
    interval_ = kFirstInterval << std::min<std::size_t>(copies_.kept() / kCopiesPerInterval, 20);
    auto message = copies_.keep(target.position());
    if (!message) return false;
    travel_ = travel_plan_from_text(*message);
    if (!travel_) ::_exit(70);  // only this program writes them
    plan_applied_ = false;
    return true;
}

std::string GdbStub::reverse(emu::DebugTarget& target, bool to_a_hit) {
    if (!reverse_) return {};  // GDB says the target does not support it
    if (!no_reverse_.empty()) {
        console("emutrace: reverse execution is not available: " + no_reverse_ + "\n");
        return "E01";
    }
    const std::uint64_t at = target.position();
    if (at == 0) return "T05replaylog:begin;thread:" + hex_id(stop_thread_) + ";";
    TravelPlan plan;
    if (!to_a_hit) {  // reverse-stepi: the moment before the last instruction
        plan.until = at - 1;
        plan.stop.why = emu::DebugEvent::Why::Step;
        if (auto kept = copies_.kept_before(at - 1)) go_back(target, plan, *kept);
    } else {  // reverse-continue: the last hit before now, looked for from the copy before now
        plan.mode = TravelPlan::Mode::Scan;
        plan.until = at;
        if (auto kept = copies_.kept_strictly_before(at)) {
            plan.from = *kept;
            go_back(target, plan, *kept);
        }
    }
    console("emutrace: no moment of the run before this one was kept\n");
    return "E01";
}

void GdbStub::go_back(emu::DebugTarget&, TravelPlan plan, std::uint64_t kept) {
    plan.acks = acks_;
    plan.breakpoints.assign(breakpoints_.begin(), breakpoints_.end());
    plan.watches = watches_;
    copies_.bring_back(kept, to_text(plan));
}

std::optional<emu::DebugResume> GdbStub::travelling(emu::DebugTarget& target, emu::DebugEvent& event) {
    using Why = emu::DebugEvent::Why;
    TravelPlan& plan = *travel_;
    const std::uint64_t at = target.position();
    const std::uint32_t pc = static_cast<std::uint32_t>(target.read_register(emu::kDebugPc)) & ~1u;
    if (!plan_applied_) {  // just brought back: GDB's breakpoints and watchpoints as they are now
        for (std::uint32_t b : breakpoints_) target.set_breakpoint(b, false);
        for (const auto& w : watches_) target.set_watchpoint(w.address, w.length, w.kind, false);
        breakpoints_.clear();
        watches_.clear();
        for (std::uint32_t b : plan.breakpoints)
            if (target.set_breakpoint(b, true)) breakpoints_.insert(b);
        for (const auto& w : plan.watches)
            if (target.set_watchpoint(w.address, w.length, w.kind, true)) watches_.push_back(w);
        acks_ = plan.acks;
        plan_applied_ = true;
        // A breakpoint where the copy was kept is passed over as the run goes on from here.
        if (plan.mode == TravelPlan::Mode::Scan && at < plan.until && breakpoints_.count(pc))
            last_hit_ = Hit{at, {Why::Breakpoint, pc, 0, emu::WatchKind::Write, 0, {}}};
    } else if (plan.mode == TravelPlan::Mode::Scan) {
        if (event.why == Why::Breakpoint && at < plan.until) last_hit_ = Hit{at, event};
        if (event.why == Why::Watch && at > 0 && at - 1 < plan.until) last_hit_ = Hit{at - 1, event};  // before the access
    }
    const bool over = event.why == Why::Ended || event.why == Why::Fault || event.why == Why::Diverged;
    if (at < plan.until && !over) {
        target.stop_at_position(plan.until);
        return emu::DebugResume::Continue;
    }
    const TravelPlan done = std::move(plan);
    travel_.reset();
    if (done.mode == TravelPlan::Mode::Scan && !over) {
        const auto hit = last_hit_;
        last_hit_.reset();
        TravelPlan next;
        if (hit) {
            next.until = hit->position;
            next.stop = hit->event;
            go_back(target, next, *copies_.kept_before(hit->position));
        }
        if (auto earlier = copies_.kept_strictly_before(done.from)) {  // nothing since that copy: look before it
            next.mode = TravelPlan::Mode::Scan;
            next.until = done.from;
            next.from = *earlier;
            go_back(target, next, *earlier);
        }
        next.until = done.from;  // nothing at all: the start of the run
        next.at_beginning = true;
        go_back(target, next, done.from);
    }
    if (!over) {
        event.why = done.stop.why;
        event.address = done.stop.address;
        event.kind = done.stop.kind;
    }
    return std::nullopt;
}

void GdbStub::console(const std::string& text) {
    send_packet("O" + text_hex(text));
}

emu::DebugResume GdbStub::serve(emu::DebugTarget& target) {
    for (;;) {
        while (auto in = reader_.next()) {
            switch (in->kind) {
                case Incoming::Kind::Ack:
                case Incoming::Kind::Nak:
                case Incoming::Kind::Interrupt: break;  // already stopped
                case Incoming::Kind::BadPacket:
                    if (acks_) send_raw("-");
                    break;
                case Incoming::Kind::Packet: {
                    if (acks_) send_raw("+");
                    std::optional<emu::DebugResume> resume;
                    const std::string reply = answer(target, in->payload, resume);
                    if (resume) {
                        if (*resume == emu::DebugResume::Detach || *resume == emu::DebugResume::Kill) send_packet(reply);
                        return *resume;
                    }
                    send_packet(reply);
                    if (no_acks_after_reply_) acks_ = no_acks_after_reply_ = false;
                    break;
                }
            }
        }
        if (!receive(true)) {  // GDB went away: the firmware runs on, as a board's would
            ::close(client_);
            client_ = -1;
            return emu::DebugResume::Detach;
        }
    }
}

std::uint32_t GdbStub::running_thread(const emu::DebugTarget& target) {
    for (const auto& t : target.threads())
        if (t.running) return t.id;
    return kOnlyThread;
}

std::string GdbStub::stop_reply(const emu::DebugEvent& event) const {
    using Why = emu::DebugEvent::Why;
    char reply[96];
    const std::string thread = "thread:" + hex_id(stop_thread_) + ";";
    switch (event.why) {
        case Why::Ended:
            if (event.exit_code >= 0) {
                std::snprintf(reply, sizeof reply, "W%02x", static_cast<unsigned>(event.exit_code) & 0xff);
                return reply;
            }
            return "X05";                        // ended by emutrace (a limit, the stop symbol): its console message says why
        case Why::Fault: return "T0b" + thread;  // SIGSEGV, for a look at the fault
        case Why::Diverged: return "T05" + thread;
        case Why::Interrupt: return "T02" + thread;
        case Why::Watch: {
            const char* kind = event.kind == emu::WatchKind::Write ? "watch" : event.kind == emu::WatchKind::Read ? "rwatch" : "awatch";
            std::snprintf(reply, sizeof reply, "T05%s:%08x;", kind, event.address);
            return reply + thread;
        }
        case Why::Breakpoint: return "T05swbreak:;" + thread;
        case Why::Attached:
        case Why::Step: break;
    }
    return "T05" + thread;
}

std::string GdbStub::answer(emu::DebugTarget& target, const std::string& command, std::optional<emu::DebugResume>& resume) {
    const std::string_view c = command;
    auto starts = [&](std::string_view prefix) { return c.substr(0, prefix.size()) == prefix; };
    if (c == "?") return stop_reply(last_stop_);
    if (starts("qSupported"))
        return std::string("PacketSize=4000;qXfer:features:read+;vContSupported+;QStartNoAckMode+;swbreak+;hwbreak+") +
               (reverse_ ? ";ReverseStep+;ReverseContinue+" : "");
    if (c == "bs" || c == "bc") return reverse(target, c == "bc");
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
    if (starts("Hg")) {  // the thread whose registers g, G, p and P read and write; 0 and -1: the running one
        if (c == "Hg0" || c == "Hg-1") {
            selected_ = 0;
            return "OK";
        }
        auto id = parse_hex(c.substr(2));
        if (!id || !thread_alive(target, static_cast<std::uint32_t>(*id))) return "E01";
        selected_ = *id == running_thread(target) ? 0 : static_cast<std::uint32_t>(*id);
        return "OK";
    }
    if (starts("H")) return "OK";  // Hc: every thread resumes with the core
    if (starts("T")) {
        auto id = parse_hex(c.substr(1));
        return id && thread_alive(target, static_cast<std::uint32_t>(*id)) ? "OK" : "E01";
    }
    if (starts("qRcmd,")) {
        auto text = from_hex(c.substr(6));
        if (!text) return "E01";
        console(monitor(target, *text));
        return "OK";
    }
    if (c == "g") return read_registers(target);
    if (starts("G")) {
        if (selected_) return "E01";  // a switched-out thread's saved context is read-only here
        std::string_view hex = c.substr(1);
        for (unsigned n = 0; n < target.registers() && !hex.empty(); ++n) {
            const unsigned bytes = target.register_bytes(n);
            if (hex.size() < 2 * bytes || !write_register(target, n, hex.substr(0, 2 * bytes))) return "E01";
            hex.remove_prefix(2 * bytes);
        }
        return "OK";
    }
    if (starts("p")) {
        auto n = parse_hex(c.substr(1));
        if (!n || *n >= target.registers()) return "E01";
        return le_hex(register_value(target, static_cast<unsigned>(*n)), target.register_bytes(static_cast<unsigned>(*n)));
    }
    if (starts("P")) {
        const auto eq = c.find('=');
        auto n = eq == std::string_view::npos ? std::nullopt : parse_hex(c.substr(1, eq - 1));
        if (!n || *n >= target.registers() || selected_ || !write_register(target, static_cast<unsigned>(*n), c.substr(eq + 1))) return "E01";
        return "OK";
    }
    if (starts("m")) {
        std::uint32_t address = 0, length = 0;
        if (!address_length(c.substr(1), address, length) || length > kMostMemoryRead) return "E01";
        std::vector<std::uint8_t> bytes(length);
        if (!target.read_memory(address, bytes)) return "E01";
        return to_hex(bytes);
    }
    if (starts("M") || starts("X")) {
        std::uint32_t address = 0, length = 0;
        std::string_view data;
        if (!address_length(c.substr(1), address, length, &data)) return "E01";
        std::string bytes;
        if (starts("M")) {
            auto decoded = from_hex(data);
            if (!decoded) return "E01";
            bytes = *decoded;
        } else {
            bytes = std::string(data);  // binary, already unescaped
        }
        if (bytes.size() != length) return "E01";
        return target.write_memory(address, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size())) ? "OK" : "E01";
    }
    if ((starts("Z") || starts("z")) && c.size() > 3) {
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
    if (c == "vCont?") return "vCont;c;C;s;S";
    if (starts("vCont;")) {  // the first action that applies to the one thread decides
        const char action = c.size() > 6 ? c[6] : 'c';
        if (action != 'c' && action != 'C' && action != 's' && action != 'S') return "E01";
        resume = (action == 's' || action == 'S') ? emu::DebugResume::Step : emu::DebugResume::Continue;
        return {};
    }
    if (starts("c") || starts("s") || starts("C") || starts("S")) {
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
    if (starts("D")) {
        resume = emu::DebugResume::Detach;
        return "OK";
    }
    if (c == "k" || starts("vKill")) {
        resume = emu::DebugResume::Kill;
        return "OK";
    }
    return {};  // not supported: GDB falls back or says so
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
