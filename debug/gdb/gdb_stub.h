#pragma once
// `emutrace run --gdb [HOST:]PORT`: a GDB remote stub over TCP. It waits for GDB before the
// reset handler runs, then serves registers (the M-profile core's, the system registers, the FPU's
// on an M4F) through a target description, memory (device registers through their models), software
// and hardware breakpoints, write/read/access watchpoints, continue, step, Ctrl-C, detach and kill,
// and `monitor` commands (cycles, emulated time, the cycle model). With an RTOS (rtos: in the
// scenario) its threads are GDB's threads, a switched-out one's registers read from its saved context.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "debug/gdb/rsp_packets.h"
#include "emu/debug.h"

namespace emutrace::debug::gdb {

class GdbStub final : public emu::Debugger {
public:
    /// Listens on "[HOST:]PORT" (127.0.0.1 without a host; port 0 picks a free one); throws
    /// ConfigError naming the address when it cannot.
    explicit GdbStub(const std::string& address);
    ~GdbStub() override;
    GdbStub(const GdbStub&) = delete;
    GdbStub& operator=(const GdbStub&) = delete;

    /// "127.0.0.1:3333", the port chosen.
    const std::string& listening() const { return listening_; }

    emu::DebugResume stopped(emu::DebugTarget& target, const emu::DebugEvent& event) override;
    bool interrupt_requested() override;

private:
    /// Serves packets until one resumes the target; what it asked for.
    emu::DebugResume serve(emu::DebugTarget& target);
    /// One command's answer; `resume` set by the commands that resume.
    std::string answer(emu::DebugTarget& target, const std::string& command, std::optional<emu::DebugResume>& resume);
    std::string stop_reply(const emu::DebugEvent& event) const;
    std::string monitor(emu::DebugTarget& target, const std::string& command);
    std::string read_registers(emu::DebugTarget& target) const;
    /// Register `n` of the selected thread (Hg): a switched-out thread's as it was saved.
    std::uint64_t register_value(emu::DebugTarget& target, unsigned n) const;
    static std::uint32_t running_thread(const emu::DebugTarget& target);
    static bool thread_alive(const emu::DebugTarget& target, std::uint32_t id);
    bool write_register(emu::DebugTarget& target, unsigned n, std::string_view hex);
    std::string target_xml(const emu::DebugTarget& target) const;
    bool accept_client();     ///< false when a signal stopped the wait
    bool receive(bool wait);  ///< reads what the socket has (`wait`: until something); false when GDB went away or a signal came
    static bool wait_readable(int fd);
    void send_packet(std::string_view payload);
    void send_raw(std::string_view bytes);
    /// Text on GDB's console (an 'O' packet).
    void console(const std::string& text);

    int listener_ = -1;
    int client_ = -1;
    std::string listening_;
    PacketReader reader_;
    bool acks_ = true;
    bool no_acks_after_reply_ = false;
    emu::DebugEvent last_stop_;
    std::uint32_t stop_thread_ = 1;  ///< the thread running at the last stop
    std::uint32_t selected_ = 0;     ///< Hg's thread when it is not the running one, else 0
    std::chrono::steady_clock::time_point last_poll_{};
};

}  // namespace emutrace::debug::gdb
