#pragma once
// Reads one silicon measurement archive (a zstd-compressed tar of N.flash images and N.dump
// MessagePack results, tests/data/silicon's format) into what each configuration measured, checking
// every member and field before anything runs.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace emutrace::silicon {

/// A memory region the board dumped after its run, as measured.
struct MeasuredRegion {
    std::string name;  ///< the dump's symbol, e.g. "times"
    std::uint32_t address = 0;
    std::vector<std::uint8_t> bytes;
};

/// One configuration of a test: the image the board ran and what it left in memory.
struct MeasuredConfiguration {
    std::uint32_t number = 0;  ///< N of N.flash / N.dump
    std::string name;          ///< the dump's configuration_name
    std::vector<std::uint8_t> flash;
    std::uint32_t main = 0, exit = 0;  ///< where the measured program starts and where it has ended
    std::vector<MeasuredRegion> regions;
    /// The measured instruction sequence [code_from, code_to) where the run executes it (the SRAM
    /// copy when the configuration runs code from SRAM); 0, 0 when the dump does not say.
    std::uint32_t code_from = 0, code_to = 0;
};

/// Calls `each` with every configuration of the archive at `path` as soon as both its members have
/// been read (the archive streams; only unpaired members are held, bounded in size). Throws
/// ConfigError naming the archive, the member and what is wrong when the archive, a member or a dump
/// is malformed.
void read_silicon_archive(const std::string& path, const std::function<void(MeasuredConfiguration&&)>& each);

}  // namespace emutrace::silicon
