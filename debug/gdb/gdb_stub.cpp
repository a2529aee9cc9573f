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
        if (copies_.orphaned()) ::_exit(1);    // the run's supervisor has gone: so has the run
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

}  // namespace emutrace::debug::gdb
