#pragma once
// Selective instrumentation by binary patching (the entry/exit tracing paper's phase 1): the
// calls of -finstrument-functions hooks (__cyg_profile_func_enter/exit) in a linked ELF become
// NOPs and back, per function, without recompiling. The sites come from the relocations a build
// with -Wl,--emit-relocs keeps (exact, and still there once a site is a NOP); without them, from
// the BL and B.W instructions that reach a hook (which can be disabled, not re-enabled).

#include <cstdint>
#include <string>
#include <vector>

#include "decode/elf_image.h"

namespace emutrace::decode {

struct HookSite {
    std::uint32_t address = 0;  ///< the 32-bit BL (or NOP.W) of the hook call
    std::uint32_t hook = 0;     ///< the hook it calls when enabled
    std::string function;       ///< the instrumented function it is in
    bool enabled = false;       ///< a BL now (else a NOP.W)
    /// GCC's exit hook as the function's last act: `b.w hook` after lr is restored, disabled
    /// as `bx lr; nop` (the return the hook would have made).
    bool tail = false;
};

class HookPatcher {
public:
    /// Reads the ELF and finds its hook sites; throws ConfigError naming the file when it has no
    /// hooks or a site holds neither a BL to its hook nor a NOP.W ("does not look like a hook
    /// call", with the address).
    explicit HookPatcher(const std::string& elf);

    const std::vector<HookSite>& sites() const { return sites_; }
    bool has_relocations() const { return from_relocations_; }
    /// Sets the sites of the functions `glob` (fnmatch) matches, or every site for "*"; returns
    /// how many changed. Enabling without relocations throws ConfigError.
    std::size_t set(const std::string& glob, bool enabled);
    /// Writes the patched ELF: the input's bytes with the changed instructions.
    void write(const std::string& path) const;

private:
    std::string path_;
    std::vector<std::uint8_t> bytes_;
    struct Code {
        std::uint32_t address, size, offset;  ///< an executable section: where it runs, where it is in the file
    };
    std::vector<Code> code_;
    std::vector<HookSite> sites_;
    bool from_relocations_ = false;
    std::size_t file_offset(std::uint32_t address) const;
    struct RelocatedCall {
        std::uint32_t address, hook;
        bool tail;
    };
    std::vector<RelocatedCall> read_sections();
    void add_site(const ElfImage& image, std::uint32_t at, std::uint32_t hook, bool tail, bool must);
};

}  // namespace emutrace::decode
