#pragma once
// `emutrace run --gdb [HOST:]PORT`: a GDB remote stub over TCP. It waits for GDB before the
// reset handler runs, then serves registers (the M-profile core's, the system registers, the FPU's
// on an M4F) through a target description, memory (device registers through their models), software
// and hardware breakpoints, write/read/access watchpoints, continue, step, Ctrl-C, detach and kill,
// and `monitor` commands (cycles, emulated time, the cycle model). With an RTOS (rtos: in the
// scenario) its threads are GDB's threads, a switched-out one's registers read from its saved context.
// With `reverse` (replay --gdb), also reverse-stepi and reverse-continue (bs, bc): the run keeps
// copies of itself now and then (debug/travel) and goes back by running one on again.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <set>
#include <vector>

#include "debug/gdb/rsp_packets.h"
#include "debug/gdb/travel_plan.h"
#include "debug/travel/process_copies.h"
#include "emu/debug.h"

namespace emutrace::debug::gdb {

class GdbStub final : public emu::Debugger {
public:
    /// Listens on "[HOST:]PORT" (127.0.0.1 without a host; port 0 picks a free one); throws
    /// ConfigError naming the address when it cannot.
    /// `reverse`: serve reverse execution (needs a deterministic run: a replay); `no_reverse`: why
    /// it cannot be served after all, told to GDB when asked for.
    explicit GdbStub(const std::string& address, bool reverse = false, std::string no_reverse = {});
    ~GdbStub() override;
    GdbStub(const GdbStub&) = delete;
    GdbStub& operator=(const GdbStub&) = delete;

    /// "127.0.0.1:3333", the port chosen.
    const std::string& listening() const { return listening_; }

    emu::DebugResume stopped(emu::DebugTarget& target, const emu::DebugEvent& incoming) override;
    bool interrupt_requested() override;
    std::uint64_t checkpoint_interval() const override { return reverse_ ? interval_ : 0; }
    bool checkpoint(emu::DebugTarget& target) override;

private:
    /// Serves packets until one resumes the target; what it asked for.
    emu::DebugResume serve(emu::DebugTarget& target);
    /// One command's answer; `resume` set by the commands that resume. By family (gdb_commands.cpp):
    std::string answer(emu::DebugTarget& target, const std::string& command, std::optional<emu::DebugResume>& resume);
    std::string query(emu::DebugTarget& target, std::string_view c);           ///< q…, Q…
    std::string thread_command(emu::DebugTarget& target, std::string_view c);  ///< H…, T…
    std::string register_command(emu::DebugTarget& target, std::string_view c);
    std::string memory_command(emu::DebugTarget& target, std::string_view c);
    std::string point_command(emu::DebugTarget& target, std::string_view c);  ///< Z…, z…
    std::string resume_command(emu::DebugTarget& target, std::string_view c, std::optional<emu::DebugResume>& resume);
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
    /// bs, bc: goes back (ends this process: a copy brought back answers), or the answer now.
    std::string reverse(emu::DebugTarget& target, bool to_a_hit);
    [[noreturn]] void go_back(emu::DebugTarget& target, TravelPlan plan, std::uint64_t kept);
    /// A stop on the way of a travel: how to go on, or nothing when the travel has arrived.
    std::optional<emu::DebugResume> travelling(emu::DebugTarget& target, emu::DebugEvent& event);

    int listener_ = -1;
    int client_ = -1;
    std::string listening_;
    PacketReader reader_;
    bool acks_ = true;
    bool no_acks_after_reply_ = false;
    emu::DebugEvent last_stop_;
    std::uint32_t stop_thread_ = 1;  ///< the thread running at the last stop
    std::uint32_t selected_ = 0;     ///< Hg's thread when it is not the running one, else 0
    // What GDB has set, which a copy brought back is told (it was kept before some of it).
    std::set<std::uint32_t> breakpoints_;
    std::vector<WatchSpec> watches_;
    // Reverse execution.
    bool reverse_ = false;
    std::string no_reverse_;  ///< why it cannot be served, when it cannot
    travel::ProcessCopies copies_;
    static constexpr std::uint64_t kFirstInterval = 1'000'000;
    std::uint64_t interval_ = kFirstInterval;  ///< instructions between copies; doubles as they add up
    std::optional<TravelPlan> travel_;         ///< in a copy brought back: where it is going
    struct Hit {
        std::uint64_t position;
        emu::DebugEvent event;
    };
    std::optional<Hit> last_hit_;  ///< Scan: the last breakpoint or watchpoint hit on the way
    bool plan_applied_ = false;    ///< the travel's breakpoints and watchpoints are set
    std::chrono::steady_clock::time_point last_poll_{};
};

}  // namespace emutrace::debug::gdb
