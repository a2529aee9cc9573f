#pragma once
// Runs a folder of real-silicon cycle measurements (tests/data/silicon's format: per test a .tzst of
// N.flash images and N.dump MessagePack results) in the emulator and compares every dumped memory
// region with what the emulated run left there (docs/silicon.md).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace emutrace::silicon {

/// A 32-bit word the board and the emulator disagree on.
struct WordMismatch {
    std::string region;       ///< the dump's symbol, e.g. "times"
    std::uint32_t index = 0;  ///< word index in the region
    std::uint32_t measured = 0, emulated = 0;
};

struct SiliconConfiguration {
    std::uint32_t number = 0;              ///< N of N.flash / N.dump
    std::string name;                      ///< the dump's configuration_name
    bool exact = false;                    ///< every dumped region matched byte for byte
    std::string error;                     ///< the emulated run did not reach the exit address: why
    std::vector<WordMismatch> mismatches;  ///< every differing word, in dump order
    std::vector<std::string> code;         ///< the measured instruction sequence, disassembled
};

struct SiliconTest {
    std::string category, name;
    std::vector<SiliconConfiguration> configurations;
    std::size_t exact() const;
};

struct SiliconBoard {
    std::uint32_t flash_base = 0x08000000, flash_size = 128 * 1024;
    std::uint32_t sram_base = 0x20000000, sram_size = 8 * 1024;
    unsigned sram_fetch_word_cycles = 2;  ///< code in SRAM comes over the System bus
    bool flash_shares_fetch_port = true;  ///< loads from flash take the flash interface ahead of the fetch
    bool times_unaligned = true;          ///< an unaligned access takes the transfers the core splits it into
    std::uint64_t clock_hz = 24'000'000;
};

/// Runs every `<category>/<test>.tzst` under `dir` in name order; `progress` (if given) hears of
/// each test as it finishes. Throws ConfigError naming the file when an archive or dump is
/// malformed.
std::vector<SiliconTest> run_silicon_suite(const std::string& dir, const SiliconBoard& board = {},
                                           const std::function<void(const SiliconTest&)>& progress = {});

}  // namespace emutrace::silicon
