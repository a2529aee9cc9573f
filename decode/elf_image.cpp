#include "decode/elf_image.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "config/config_error.h"

namespace emutrace::decode {
namespace {

// Owns the file descriptor and the libelf handle for the duration of a load.
class ElfFile {
public:
    explicit ElfFile(const std::string& path) : path_(path) {
        if (elf_version(EV_CURRENT) == EV_NONE) fail("libelf is out of date");
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) fail(std::string("cannot open: ") + std::strerror(errno));
        elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
        if (!elf_) fail(std::string("cannot read: ") + elf_errmsg(-1));
    }
    ~ElfFile() {
        if (elf_) elf_end(elf_);
        if (fd_ >= 0) ::close(fd_);
    }
    ElfFile(const ElfFile&) = delete;
    ElfFile& operator=(const ElfFile&) = delete;

    Elf* get() const { return elf_; }
    [[noreturn]] void fail(const std::string& message) const { throw ConfigError(path_ + ": " + message); }

private:
    std::string path_;
    int fd_ = -1;
    Elf* elf_ = nullptr;
};

void check_header(const ElfFile& file, const GElf_Ehdr& eh) {
    if (eh.e_ident[EI_CLASS] != ELFCLASS32)
        file.fail("64-bit ELF (e_machine " + std::to_string(eh.e_machine) + "); emutrace runs 32-bit ARM Cortex-M firmware");
    if (eh.e_machine != EM_ARM)
        file.fail("ELF for machine " + std::to_string(eh.e_machine) + ", not ARM (EM_ARM = 40); is this a host binary?");
    if (eh.e_ident[EI_DATA] != ELFDATA2LSB) file.fail("big-endian ARM ELF; Cortex-M firmware is little-endian");
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
    if (segments.empty())
        file.fail("no loadable (PT_LOAD) segments: nothing to run");
    return segments;
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
                if ((name[1] == 't' || name[1] == 'a' || name[1] == 'd') && (name[2] == 0 || name[2] == '.'))
                    mapping.push_back({static_cast<std::uint32_t>(sym.st_value), name[1]});
                continue;
            }
            Symbol s;
            s.name = name;
            s.is_function = type == STT_FUNC;
            s.address = static_cast<std::uint32_t>(s.is_function ? sym.st_value & ~1ull : sym.st_value);
            s.size = static_cast<std::uint32_t>(sym.st_size);
            out.push_back(std::move(s));
        }
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
    std::sort(image.mapping_.begin(), image.mapping_.end(), [](const MappingSymbol& a, const MappingSymbol& b) { return a.address < b.address; });
    return image;
}

bool ElfImage::is_data(std::uint32_t address) const {
    auto it = std::upper_bound(mapping_.begin(), mapping_.end(), address,
                               [](std::uint32_t a, const MappingSymbol& m) { return a < m.address; });
    return it != mapping_.begin() && std::prev(it)->kind == 'd';
}

std::vector<std::uint8_t> ElfImage::bytes_at(std::uint32_t address, std::uint32_t size) const {
    for (const auto& s : segments_)
        for (std::uint32_t base : {s.virtual_address, s.load_address})
            if (address >= base && static_cast<std::uint64_t>(address - base) + size <= s.bytes.size())
                return std::vector<std::uint8_t>(s.bytes.begin() + (address - base), s.bytes.begin() + (address - base) + size);
    return {};
}

std::uint32_t ElfImage::lowest_load_address() const {
    std::uint32_t lowest = UINT32_MAX;
    for (const auto& s : segments_) lowest = std::min(lowest, s.load_address);
    return lowest;
}

}  // namespace emutrace::decode
