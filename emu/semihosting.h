#pragma once
// ARM semihosting (the BKPT 0xAB calls of the "Semihosting for AArch32 and AArch64" spec) as a
// host for untrusted firmware: console output, exit codes and clocks from emulated time. Host
// files are reachable only under a directory the scenario grants; every guest pointer is checked.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "emu/machine_config.h"
#include "emutrace/event.h"

namespace emutrace::emu {

/// What semihosting needs from the machine.
class SemihostingHost {
public:
    virtual ~SemihostingHost() = default;
    /// False when any byte is outside mapped memory.
    virtual bool read_guest(std::uint32_t address, std::span<std::uint8_t> out) = 0;
    virtual bool write_guest(std::uint32_t address, std::span<const std::uint8_t> bytes) = 0;
    virtual std::uint64_t now_cycles() const = 0;
    virtual void output(trace::OutputChannel channel, std::string_view text) = 0;
};

struct SemihostingOutcome {
    std::uint32_t r0 = 0;  ///< the call's return value
    bool exited = false;   ///< SYS_EXIT / SYS_EXIT_EXTENDED
    int exit_code = 0;
};

class Semihosting {
public:
    Semihosting(SemihostingConfig config, std::uint64_t clock_hz, SemihostingHost& host);
    ~Semihosting();
    Semihosting(const Semihosting&) = delete;
    Semihosting& operator=(const Semihosting&) = delete;

    /// Performs operation `op` (r0) with parameter `arg` (r1).
    SemihostingOutcome call(std::uint32_t op, std::uint32_t arg);
    /// At the end of a run: how many warnings were not shown (a firmware that repeats a refused
    /// call in a loop would otherwise print one line per call), as one line; none when all were.
    void report_unshown_warnings() const;

private:
    bool read_words(std::uint32_t address, std::span<std::uint32_t> out);
    bool read_string(std::uint32_t address, std::size_t max, std::string& out, bool nul_terminated);
    std::uint32_t fail(int err);
    std::uint32_t open(std::uint32_t arg);
    std::uint32_t write(std::uint32_t arg);
    std::uint32_t read(std::uint32_t arg);
    std::uint32_t file_op(std::uint32_t op, std::uint32_t arg);
    std::uint32_t get_cmdline(std::uint32_t arg);
    std::FILE* file(std::uint32_t handle);
    /// The first kShownWarnings warnings are logged; the rest only counted.
    template <typename... Args>
    void warn(spdlog::format_string_t<Args...> format, Args&&... args);
    static constexpr unsigned kShownWarnings = 10;
    std::uint64_t warnings_ = 0;
    static std::FILE* open_beneath(const std::filesystem::path& dir, const std::string& name, std::uint32_t mode);

    SemihostingConfig config_;
    std::uint64_t clock_hz_;
    SemihostingHost& host_;
    int errno_ = 0;
    std::vector<std::FILE*> files_;  ///< handle - 3 → open host file (handles 0-2 are the console)
};

}  // namespace emutrace::emu
