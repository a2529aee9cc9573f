#pragma once
// A device's memory as a dump file holds it: an ELF core (gdb's gcore, `emutrace run
// --dump-ram`), Intel HEX (gdb's `dump ihex memory`, objcopy), or raw bytes at a base address
// the user gives (`dump binary memory`, a probe's memory save). Sources of device-side records
// (the replay recorder's ring, ...) search it.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace emutrace::decode {

struct DumpSegment {
    std::uint32_t base = 0;
    std::vector<std::uint8_t> bytes;
};

/// A range of memory a dump is to hold, its bytes read as the file is written.
struct DumpRange {
    std::uint32_t base = 0;
    std::uint32_t size = 0;
};
/// Reads `size` bytes at `address` (empty when it cannot).
using DumpReader = std::function<std::vector<std::uint8_t>(std::uint32_t address, std::uint32_t size)>;

/// The --base option of a raw dump ("0x20000000"); none for an empty text. Throws ConfigError
/// naming --base for anything that is not a 32-bit address.
std::optional<std::uint32_t> parse_dump_base(const std::string& text);

class MemoryDump {
public:
    /// Reads `path`, its format told by its first bytes (ELF magic, a ':' record); anything else
    /// is raw binary and needs `base`. Throws ConfigError "<path>: <what>" (line N for Intel HEX).
    static MemoryDump load(const std::string& path, std::optional<std::uint32_t> base);
    /// Writes `ranges` as an ELF core file (ET_CORE, one PT_LOAD per range), which readelf,
    /// objcopy and gdb read, reading each range through `read` a piece at a time (a region of a
    /// gigabyte is never held whole). Throws ConfigError naming `path` when the ranges add up to
    /// more than a 32-bit core holds, or a read or the write fails.
    static void save_elf_core(const std::string& path, const std::vector<DumpRange>& ranges, const DumpReader& read);

    const std::vector<DumpSegment>& segments() const { return segments_; }
    const std::string& format() const { return format_; }  ///< "ELF", "Intel HEX" or "raw binary"

private:
    std::vector<DumpSegment> segments_;
    std::string format_;
};

}  // namespace emutrace::decode
