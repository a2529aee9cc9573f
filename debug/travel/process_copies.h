#pragma once
// Moments of a run kept as frozen copies of the whole process (fork), for reverse execution: a
// run is deterministic, so going back to position P is bringing back the last copy kept at or
// before P and running it on to P. A copy holds everything (the machine, its devices, the cycle
// model, the analyses' state) at no cost until pages change; nothing has to be saved by hand.
//
// The processes: the one the shell started becomes a supervisor that only waits, and exits with
// the status of the process that ends the run; the copies wait, blocked, until brought back or
// until the supervisor goes; the running process is whichever copy was brought back last. Linux
// only (a child subreaper). Needs a single-threaded process: fork() copies one thread.

#include <sys/types.h>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace emutrace::debug::travel {

class ProcessCopies {
public:
    ProcessCopies() = default;
    ProcessCopies(const ProcessCopies&) = delete;
    ProcessCopies& operator=(const ProcessCopies&) = delete;

    /// Why copies cannot be made in this process now (another thread runs), or empty.
    static std::string unavailable();
    /// Makes this process the run's supervisor: returns in a new process that runs on; the
    /// supervisor itself never returns. Throws ConfigError when it cannot.
    void supervise();
    /// Keeps this moment, at `position`: returns nothing in this process, and the message in the
    /// copy when it is brought back (in a new process, which then runs on).
    std::optional<std::string> keep(std::uint64_t position);
    /// The position of the last copy kept at or before `position`.
    std::optional<std::uint64_t> kept_before(std::uint64_t position) const;
    /// The position of the last copy kept before `position`, strictly.
    std::optional<std::uint64_t> kept_strictly_before(std::uint64_t position) const;
    /// Brings back the copy kept at `kept` with `message`, drops those kept after it, and ends
    /// this process.
    [[noreturn]] void bring_back(std::uint64_t kept, const std::string& message);
    /// Whether the supervisor has gone (the run is over): a process should then end.
    bool orphaned() const;
    /// How many copies are kept.
    std::size_t kept() const { return copies_.size(); }

private:
    struct Copy {
        std::uint64_t position;
        pid_t pid;
        int wake;  ///< the write end of the pipe the copy waits on
    };
    /// In the copy: waits until brought back; returns in the process that runs on.
    std::string wait_as_copy(std::uint64_t position, int wake_read, int wake_write);
    void announce(const char* what) const;

    std::vector<Copy> copies_;
    int supervisor_news_ = -1;  ///< the write end of the pipe the supervisor reads what happens on
    int lifeline_ = -1;         ///< the read end of a pipe only the supervisor writes: hung up when it goes
};

}  // namespace emutrace::debug::travel
