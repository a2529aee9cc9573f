#include "sources/ring/hook_patcher.h"

#include <fnmatch.h>
#include <gelf.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "config/little_endian.h"
#include "config/text_file.h"
#include "config/units.h"
#include "decode/elf_file.h"
#include "decode/elf_image.h"
#include "emutrace/config_error.h"

namespace emutrace::decode {
namespace {

constexpr std::uint16_t kNopW1 = 0xF3AF, kNopW2 = 0x8000, kBxLr = 0x4770, kNop = 0xBF00;
constexpr unsigned kThmCall = 10, kThmJump24 = 30;  // R_ARM_THM_CALL, R_ARM_THM_JUMP24
const char* const kHooks[] = {"__cyg_profile_func_enter", "__cyg_profile_func_exit"};

using config::read_le16;

// The target of a Thumb-2 BL (or, `tail`, a B.W) at `pc`; none when the halfwords are not one.
std::optional<std::uint32_t> branch_target(std::uint16_t hw1, std::uint16_t hw2, std::uint32_t pc, bool tail) {
    if ((hw1 & 0xF800) != 0xF000 || (hw2 & 0xD000) != (tail ? 0x9000 : 0xD000)) return std::nullopt;
    const std::uint32_t s = hw1 >> 10 & 1, j1 = hw2 >> 13 & 1, j2 = hw2 >> 11 & 1;
    const std::uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
    std::uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3FFu) << 12 | (hw2 & 0x7FFu) << 1;
    if (s) imm |= 0xFE000000u;
    return pc + 4 + imm;
}

void encode_branch(std::uint32_t pc, std::uint32_t target, bool tail, std::uint8_t* out) {
    const std::uint32_t imm = target - (pc + 4);
    const std::uint32_t s = imm >> 24 & 1, i1 = imm >> 23 & 1, i2 = imm >> 22 & 1;
    const std::uint32_t j1 = !i1 ^ s, j2 = !i2 ^ s;
    const std::uint16_t hw1 = static_cast<std::uint16_t>(0xF000 | s << 10 | (imm >> 12 & 0x3FF));
    const std::uint16_t hw2 = static_cast<std::uint16_t>((tail ? 0x9000 : 0xD000) | j1 << 13 | j2 << 11 | (imm >> 1 & 0x7FF));
    out[0] = static_cast<std::uint8_t>(hw1), out[1] = static_cast<std::uint8_t>(hw1 >> 8);
    out[2] = static_cast<std::uint8_t>(hw2), out[3] = static_cast<std::uint8_t>(hw2 >> 8);
}

}  // namespace

HookPatcher::HookPatcher(const std::string& elf) : path_(elf) {
    const ElfImage image = ElfImage::load(elf);
    std::vector<std::uint32_t> hooks;
    for (const char* h : kHooks)
        if (auto a = image.symbols().address_of(h)) hooks.push_back(*a & ~1u);
    if (hooks.empty()) throw ConfigError(elf + ": no __cyg_profile_func_enter: not built with -finstrument-functions and a tracer");
    const std::vector<RelocatedCall> calls = read_sections();
    from_relocations_ = !calls.empty();
    if (from_relocations_) {
        for (const RelocatedCall& r : calls) add_site(image, r.address, r.hook, r.tail, true);
    } else {
        // No relocations: every 32-bit BL or B.W that reaches a hook, halfword by halfword.
        for (const Code& c : code_)
            for (std::uint32_t at = c.address; at + 4 <= c.address + c.size; at += 2) {
                const std::uint8_t* p = &bytes_[c.offset + (at - c.address)];
                for (bool tail : {false, true}) {
                    auto target = branch_target(read_le16(p), read_le16(p + 2), at, tail);
                    if (target && std::find(hooks.begin(), hooks.end(), *target) != hooks.end()) {
                        add_site(image, at, *target, tail, false);
                        at += 2;
                        break;
                    }
                }
            }
    }
    if (sites_.empty()) throw ConfigError(elf + ": no hook call sites found (built with -finstrument-functions?)");
}

// The file's bytes (the copy that is patched and written), its code sections, and the hook calls
// its relocations name (a relocatable build, or one linked with --emit-relocs).
std::vector<HookPatcher::RelocatedCall> HookPatcher::read_sections() {
    ElfFile file(path_);
    std::size_t size = 0;
    const char* raw = elf_rawfile(file.get(), &size);
    if (!raw) file.fail("cannot map the file contents");
    bytes_.assign(raw, raw + size);
    std::size_t count = 0;
    if (elf_getshdrnum(file.get(), &count) != 0) file.fail("bad section headers");
    std::vector<RelocatedCall> calls;
    for (std::size_t i = 1; i < count; ++i) {
        Elf_Scn* scn = elf_getscn(file.get(), i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh)) continue;
        if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR))
            code_.push_back(
                {static_cast<std::uint32_t>(sh.sh_addr), static_cast<std::uint32_t>(sh.sh_size), static_cast<std::uint32_t>(sh.sh_offset)});
        if (sh.sh_type != SHT_REL) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        Elf_Scn* symscn = elf_getscn(file.get(), sh.sh_link);
        GElf_Shdr symsh;
        if (!data || !symscn || !gelf_getshdr(symscn, &symsh)) continue;
        Elf_Data* syms = elf_getdata(symscn, nullptr);
        for (std::size_t k = 0; sh.sh_entsize && k < sh.sh_size / sh.sh_entsize; ++k) {
            GElf_Rel rel;
            GElf_Sym sym;
            if (!gelf_getrel(data, static_cast<int>(k), &rel)) continue;
            const unsigned type = static_cast<unsigned>(GELF_R_TYPE(rel.r_info));
            if (type != kThmCall && type != kThmJump24) continue;
            if (!syms || !gelf_getsym(syms, static_cast<int>(GELF_R_SYM(rel.r_info)), &sym)) continue;
            const char* name = elf_strptr(file.get(), symsh.sh_link, sym.st_name);
            if (!name) continue;
            for (const char* h : kHooks)
                if (std::string(name) == h)
                    calls.push_back({static_cast<std::uint32_t>(rel.r_offset), static_cast<std::uint32_t>(sym.st_value & ~1u), type == kThmJump24});
        }
    }
    return calls;
}

// A hook call site at `at`: a BL (B.W when `tail`) to `hook`, or the NOPs a patch left there.
// `must`: the relocations say it is one, so anything else there is an error.
void HookPatcher::add_site(const ElfImage& image, std::uint32_t at, std::uint32_t hook, bool tail, bool must) {
    const std::size_t off = file_offset(at);
    if (off == std::string::npos) {
        if (must) throw ConfigError(path_ + ": hook call site " + config::hex32(at) + " is in no code section");
        return;
    }
    const std::uint16_t hw1 = read_le16(&bytes_[off]), hw2 = read_le16(&bytes_[off + 2]);
    const auto target = branch_target(hw1, hw2, at, tail);
    const bool nop = tail ? hw1 == kBxLr && hw2 == kNop : hw1 == kNopW1 && hw2 == kNopW2;
    if (!(target && *target == hook) && !nop) {
        if (!must) return;
        throw ConfigError(path_ + ": " + config::hex32(at) + " (" + image.symbols().describe(at) + ") does not look like a hook call: neither " +
                          (tail ? "B.W to the hook nor BX LR; NOP" : "BL to the hook nor NOP.W") + "; refusing to patch");
    }
    const Symbol* f = image.symbols().function_at(at);
    sites_.push_back({at, hook, f ? f->name : config::hex32(at), !nop, tail});
}

std::size_t HookPatcher::file_offset(std::uint32_t address) const {
    for (const Code& c : code_)
        if (address >= c.address && address + 4 <= c.address + c.size) return c.offset + (address - c.address);
    return std::string::npos;
}

std::size_t HookPatcher::set(const std::string& glob, bool enabled) {
    if (enabled && !from_relocations_) throw ConfigError(path_ + ": re-enabling hooks needs the build's relocations: link with -Wl,--emit-relocs");
    std::size_t changed = 0;
    for (HookSite& s : sites_) {
        if (s.enabled == enabled || fnmatch(glob.c_str(), s.function.c_str(), 0) != 0) continue;
        std::uint8_t* p = &bytes_[file_offset(s.address)];
        if (enabled) {
            encode_branch(s.address, s.hook, s.tail, p);
        } else {
            const std::uint16_t hw1 = s.tail ? kBxLr : kNopW1, hw2 = s.tail ? kNop : kNopW2;
            p[0] = static_cast<std::uint8_t>(hw1), p[1] = static_cast<std::uint8_t>(hw1 >> 8);
            p[2] = static_cast<std::uint8_t>(hw2), p[3] = static_cast<std::uint8_t>(hw2 >> 8);
        }
        s.enabled = enabled;
        ++changed;
    }
    return changed;
}

void HookPatcher::write(const std::string& path) const {
    config::write_binary_file(path, bytes_, "patched ELF");
}

}  // namespace emutrace::decode
