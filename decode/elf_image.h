#pragma once
// A 32-bit little-endian ARM executable as the loader sees it: loadable segments and symbols.

#include <cstdint>
#include <string>
#include <vector>

#include "decode/symbol_table.h"

namespace emutrace::decode {

struct Segment {
    std::uint32_t load_address = 0;     ///< where the bytes go (p_paddr, the LMA)
    std::uint32_t virtual_address = 0;  ///< where the code expects them at run time (p_vaddr)
    std::uint32_t memory_size = 0;      ///< p_memsz; the part past bytes.size() is zero-filled
    bool executable = false;
    bool writable = false;
    std::vector<std::uint8_t> bytes;    ///< the p_filesz bytes from the file
};

class ElfImage {
public:
    /// Reads and validates an ELF; any problem throws ConfigError naming the file.
    static ElfImage load(const std::string& path);

    const std::string& path() const { return path_; }
    std::uint32_t entry() const { return entry_; }
    const std::vector<Segment>& segments() const { return segments_; }
    const SymbolTable& symbols() const { return symbols_; }
    /// Lowest load address of any segment: where a Cortex-M image keeps its vector table.
    std::uint32_t lowest_load_address() const;

private:
    std::string path_;
    std::uint32_t entry_ = 0;
    std::vector<Segment> segments_;
    SymbolTable symbols_;
};

}  // namespace emutrace::decode
