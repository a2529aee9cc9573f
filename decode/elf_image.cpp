#include "decode/elf_image.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>

#include "config/little_endian.h"
#include "decode/elf_file.h"
#include "emutrace/config_error.h"

namespace emutrace::decode {
namespace {

void check_header(const ElfFile& file, const GElf_Ehdr& eh) {
    if (eh.e_ident[EI_CLASS] != ELFCLASS32)
        file.fail("64-bit ELF (e_machine " + std::to_string(eh.e_machine) + "); emutrace runs 32-bit ARM Cortex-M firmware");
    // Byte order first: a big-endian file's e_machine reads byte-swapped (ARM's 40 as 10240).
    if (eh.e_ident[EI_DATA] != ELFDATA2LSB)
        file.fail(eh.e_ident[EI_DATA] == ELFDATA2MSB ? "big-endian ELF; Cortex-M firmware is little-endian"
                                                     : "ELF of unknown byte order (EI_DATA " + std::to_string(eh.e_ident[EI_DATA]) + ")");
    if (eh.e_machine != EM_ARM) file.fail("ELF for machine " + std::to_string(eh.e_machine) + ", not ARM (EM_ARM = 40); is this a host binary?");
    if (eh.e_type != ET_EXEC)
        file.fail(eh.e_type == ET_REL ? "relocatable object file (ET_REL), not a linked executable: link it first"
                                      : "not an executable ELF (e_type " + std::to_string(eh.e_type) + ")");
}

std::vector<Segment> read_segments(const ElfFile& file) {
    std::size_t count = 0;
    if (elf_getphdrnum(file.get(), &count) != 0) file.fail(std::string("bad program headers: ") + elf_errmsg(-1));
    std::size_t file_size = 0;
    const char* raw = elf_rawfile(file.get(), &file_size);
    if (!raw) file.fail("cannot map the file contents");

    std::vector<Segment> segments;
    for (std::size_t i = 0; i < count; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(file.get(), static_cast<int>(i), &ph)) file.fail("bad program header " + std::to_string(i));
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
        if (ph.p_offset > file_size || ph.p_filesz > file_size - ph.p_offset)
            file.fail("segment " + std::to_string(i) + " reaches past the end of the file (truncated ELF?)");
        if (ph.p_filesz > ph.p_memsz) file.fail("segment " + std::to_string(i) + " has p_filesz > p_memsz");
        if (ph.p_paddr + ph.p_memsz > 0x1'0000'0000ull || ph.p_vaddr + ph.p_memsz > 0x1'0000'0000ull)
            file.fail("segment " + std::to_string(i) + " wraps past the 4 GiB address space");
        Segment s;
        s.load_address = static_cast<std::uint32_t>(ph.p_paddr);
        s.virtual_address = static_cast<std::uint32_t>(ph.p_vaddr);
        s.memory_size = static_cast<std::uint32_t>(ph.p_memsz);
        s.executable = (ph.p_flags & PF_X) != 0;
        s.writable = (ph.p_flags & PF_W) != 0;
        s.bytes.assign(raw + ph.p_offset, raw + ph.p_offset + ph.p_filesz);
        segments.push_back(std::move(s));
    }
    if (segments.empty()) file.fail("no loadable (PT_LOAD) segments: nothing to run");
    return segments;
}

// Whether section `index` occupies memory at run time (SHF_ALLOC).
bool allocated(const ElfFile& file, std::size_t index) {
    if (index == SHN_UNDEF || index >= SHN_LORESERVE) return index == SHN_ABS;
    Elf_Scn* scn = elf_getscn(file.get(), index);
    GElf_Shdr sh;
    return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC);
}

std::vector<Symbol> read_symbols(const ElfFile& file, std::vector<MappingSymbol>& mapping) {
    std::vector<Symbol> out;
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(file.get(), scn)) != nullptr) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data) continue;
        std::size_t n = sh.sh_size / sh.sh_entsize;
        for (std::size_t i = 0; i < n; ++i) {
            GElf_Sym sym;
            if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
            int type = GELF_ST_TYPE(sym.st_info);
            if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) continue;
            if (sym.st_shndx == SHN_UNDEF) continue;
            const char* name = elf_strptr(file.get(), sh.sh_link, sym.st_name);
            if (!name || !*name) continue;
            if (name[0] == '$') {  // $t/$a/$d mark code and data, they are not names
                // Only those of sections in memory: debug sections (libm's .debug_frame) carry
                // their own $d at offsets that would read as code addresses.
                if ((name[1] == 't' || name[1] == 'a' || name[1] == 'd') && (name[2] == 0 || name[2] == '.') && allocated(file, sym.st_shndx))
                    mapping.push_back({static_cast<std::uint32_t>(sym.st_value), name[1]});
                continue;
            }
            Symbol s;
            s.name = name;
            s.is_function = type == STT_FUNC;
            s.address = static_cast<std::uint32_t>(s.is_function ? sym.st_value & ~1ull : sym.st_value);
            s.thumb = s.is_function && (sym.st_value & 1) != 0;
            s.size = static_cast<std::uint32_t>(sym.st_size);
            out.push_back(std::move(s));
        }
    }
    return out;
}

// Non-allocated PROGBITS sections named .emutrace.*, by name.
std::map<std::string, std::vector<std::uint8_t>> read_record_sections(const ElfFile& file) {
    std::map<std::string, std::vector<std::uint8_t>> out;
    std::size_t names = 0;
    if (elf_getshdrstrndx(file.get(), &names) != 0) return out;
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(file.get(), scn)) != nullptr) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || (sh.sh_flags & SHF_ALLOC)) continue;
        const char* name = elf_strptr(file.get(), names, sh.sh_name);
        if (!name || std::string_view(name).rfind(".emutrace.", 0) != 0) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data || !data->d_buf) file.fail(std::string("section ") + name + " has no readable data");
        const auto* bytes = static_cast<const std::uint8_t*>(data->d_buf);
        out[name].assign(bytes, bytes + data->d_size);
    }
    return out;
}

std::uint32_t read_uleb(const std::uint8_t*& p, const std::uint8_t* end) {
    std::uint32_t v = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
        std::uint8_t b = *p++;
        if (shift < 32) v |= static_cast<std::uint32_t>(b & 0x7F) << shift;
        if (!(b & 0x80)) break;
    }
    return v;
}

// The file-wide "aeabi" build attributes (ARM IHI 0045, section 2.2) emutrace reads: the
// architecture, its profile and the FPU. Malformed attributes count as not saying.
BuildAttributes read_build_attributes(const ElfFile& file) {
    constexpr unsigned kShtArmAttributes = 0x70000003, kTagFile = 1, kTagCpuArch = 6, kTagProfile = 7, kTagFpArch = 10;
    BuildAttributes out;
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(file.get(), scn)) != nullptr) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != kShtArmAttributes) continue;
        Elf_Data* data = elf_rawdata(scn, nullptr);
        if (!data || !data->d_buf || data->d_size < 1) return {};
        const auto* p = static_cast<const std::uint8_t*>(data->d_buf);
        const std::uint8_t* end = p + data->d_size;
        if (*p++ != 'A') return {};
        while (end - p >= 4) {
            std::uint32_t length = config::read_le32(p);
            if (length < 4 || length > static_cast<std::size_t>(end - p)) return {};
            const std::uint8_t* section_end = p + length;
            const std::uint8_t* q = p + 4;
            std::string_view vendor(reinterpret_cast<const char*>(q), strnlen(reinterpret_cast<const char*>(q), section_end - q));
            q += vendor.size() + 1;
            while (vendor == "aeabi" && section_end - q >= 5) {
                std::uint8_t tag = *q;
                std::uint32_t size = config::read_le32(q + 1);
                if (size < 5 || size > static_cast<std::size_t>(section_end - q)) return {};
                const std::uint8_t* sub_end = q + size;
                const std::uint8_t* a = q + 5;
                while (tag == kTagFile && a < sub_end) {
                    std::uint32_t attr = read_uleb(a, sub_end);
                    // Strings: CPU_raw_name, CPU_name, odd tags above 32, and Tag_compatibility's name after its flag.
                    if (attr == 32) read_uleb(a, sub_end);
                    if (attr == 4 || attr == 5 || attr == 32 || (attr > 32 && attr % 2 == 1)) {
                        while (a < sub_end && *a) ++a;
                        ++a;
                        continue;
                    }
                    std::uint32_t value = read_uleb(a, sub_end);
                    if (attr == kTagProfile) out.profile = value == 'A' || value == 'R' || value == 'M' ? static_cast<char>(value) : 0;
                    if (attr == kTagCpuArch) out.cpu_arch = static_cast<int>(value);
                    if (attr == kTagFpArch) out.fp = value != 0;
                }
                q = sub_end;
            }
            p = section_end;
        }
        return out;
    }
    return out;
}

}  // namespace

ElfImage ElfImage::load(const std::string& path) {
    ElfFile file(path);
    if (elf_kind(file.get()) != ELF_K_ELF) file.fail("not an ELF file");
    GElf_Ehdr eh;
    if (!gelf_getehdr(file.get(), &eh)) file.fail(std::string("bad ELF header: ") + elf_errmsg(-1));
    check_header(file, eh);

    ElfImage image;
    image.path_ = path;
    image.entry_ = static_cast<std::uint32_t>(eh.e_entry);
    image.segments_ = read_segments(file);
    image.symbols_ = SymbolTable(read_symbols(file, image.mapping_));
    image.build_ = read_build_attributes(file);
    image.records_ = read_record_sections(file);
    std::sort(image.mapping_.begin(), image.mapping_.end(), [](const MappingSymbol& a, const MappingSymbol& b) { return a.address < b.address; });
    return image;
}

ElfImage ElfImage::raw(const std::string& name, const std::vector<std::uint32_t>& addresses, const std::vector<std::uint8_t>& bytes,
                       std::vector<Symbol> symbols) {
    ElfImage image;
    image.path_ = name;
    image.build_.profile = 'M';
    for (std::uint32_t address : addresses) {
        if (static_cast<std::uint64_t>(address) + bytes.size() > 0x1'0000'0000ull) throw ConfigError(name + ": the image wraps past 4 GiB");
        Segment s;
        s.load_address = s.virtual_address = address;
        s.memory_size = static_cast<std::uint32_t>(bytes.size());
        s.executable = true;
        s.bytes = bytes;
        image.segments_.push_back(std::move(s));
    }
    if (!addresses.empty()) image.entry_ = addresses.front();
    image.symbols_ = SymbolTable(std::move(symbols));
    return image;
}

bool ElfImage::is_data(std::uint32_t address) const {
    auto it = std::upper_bound(mapping_.begin(), mapping_.end(), address, [](std::uint32_t a, const MappingSymbol& m) { return a < m.address; });
    return it != mapping_.begin() && std::prev(it)->kind == 'd';
}

std::vector<std::uint8_t> ElfImage::bytes_at(std::uint32_t address, std::uint32_t size) const {
    for (const auto& s : segments_)
        for (std::uint32_t base : {s.virtual_address, s.load_address})
            if (address >= base && static_cast<std::uint64_t>(address - base) + size <= s.bytes.size())
                return std::vector<std::uint8_t>(s.bytes.begin() + (address - base), s.bytes.begin() + (address - base) + size);
    return {};
}

const std::vector<std::uint8_t>& ElfImage::record_section(const std::string& name) const {
    static const std::vector<std::uint8_t> kNone;
    auto it = records_.find(name);
    return it == records_.end() ? kNone : it->second;
}

std::uint32_t ElfImage::lowest_load_address() const {
    std::uint32_t lowest = UINT32_MAX;
    for (const auto& s : segments_) lowest = std::min(lowest, s.load_address);
    return lowest;
}

}  // namespace emutrace::decode
