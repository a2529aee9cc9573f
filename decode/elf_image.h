#pragma once
// A 32-bit little-endian ARM executable as the loader sees it: loadable segments and symbols.

#include <cstdint>
#include <map>
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
    std::vector<std::uint8_t> bytes;  ///< the p_filesz bytes from the file
};

/// An ARM ELF mapping symbol: where code ($t Thumb, $a ARM) or data ($d, e.g. literal pools and
/// jump tables inside code) starts.
struct MappingSymbol {
    std::uint32_t address = 0;
    char kind = 't';  ///< 't', 'a' or 'd'
};

/// What the image's build attributes say it was built for (ARM IHI 0045: Tag_CPU_arch,
/// Tag_CPU_arch_profile, Tag_FP_arch).
struct BuildAttributes {
    char profile = 0;   ///< 'M', 'A' or 'R'; 0 when the file does not say
    int cpu_arch = -1;  ///< Tag_CPU_arch: 10 ARMv7, 11 ARMv6-M, 13 ARMv7E-M, ...; -1 when the file does not say
    bool fp = false;    ///< built for a floating-point unit
};

class ElfImage {
public:
    /// Reads and validates an ELF; any problem throws ConfigError naming the file.
    static ElfImage load(const std::string& path);
    /// A raw M-profile image (a flash dump), executable, loaded at each of `addresses` (a flash
    /// and its alias at 0, say); `name` stands for the path in messages.
    static ElfImage raw(const std::string& name, const std::vector<std::uint32_t>& addresses, const std::vector<std::uint8_t>& bytes,
                        std::vector<Symbol> symbols = {});

    const std::string& path() const { return path_; }
    std::uint32_t entry() const { return entry_; }
    const std::vector<Segment>& segments() const { return segments_; }
    const SymbolTable& symbols() const { return symbols_; }
    /// Mapping symbols sorted by address.
    const std::vector<MappingSymbol>& mapping_symbols() const { return mapping_; }
    /// The architecture profile the image was built for ('M', 'A' or 'R', from its build
    /// attributes), or 0 when it does not say.
    char profile() const { return build_.profile; }
    const BuildAttributes& build() const { return build_; }
    /// True when `address` lies in data ($d) by the mapping symbols.
    bool is_data(std::uint32_t address) const;
    /// `size` bytes at `address` from a segment's file image (run address first), or empty.
    std::vector<std::uint8_t> bytes_at(std::uint32_t address, std::uint32_t size) const;
    /// Lowest load address of any segment: where a Cortex-M image keeps its vector table.
    std::uint32_t lowest_load_address() const;
    /// The bytes of a non-allocated `.emutrace.*` section: records the firmware build leaves for
    /// emutrace (the marker operations of a sampling plan, say) that cost the target no memory.
    /// Empty when the image has none.
    const std::vector<std::uint8_t>& record_section(const std::string& name) const;

private:
    std::string path_;
    std::uint32_t entry_ = 0;
    std::vector<Segment> segments_;
    SymbolTable symbols_;
    std::vector<MappingSymbol> mapping_;
    BuildAttributes build_;
    std::map<std::string, std::vector<std::uint8_t>> records_;
};

}  // namespace emutrace::decode
