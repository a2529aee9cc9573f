#include "decode/memory_dump.h"

#include <elf.h>
#include <gelf.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "config/text_file.h"
#include "config/units.h"
#include "decode/elf_file.h"
#include "emutrace/config_error.h"

namespace emutrace::decode {
namespace {

std::vector<std::uint8_t> read_all(const std::string& path) {
    return config::read_binary_file(path, "memory dump");
}

std::vector<DumpSegment> read_elf(const std::string& path) {
    ElfFile file(path);
    GElf_Ehdr eh;
    if (!gelf_getehdr(file.get(), &eh)) file.fail(std::string("bad ELF header: ") + elf_errmsg(-1));
    if (eh.e_ident[EI_CLASS] != ELFCLASS32 || eh.e_machine != EM_ARM) file.fail("not a 32-bit ARM ELF: not a dump of a Cortex-M device");
    std::size_t count = 0, size = 0;
    if (elf_getphdrnum(file.get(), &count) != 0) file.fail(std::string("bad program headers: ") + elf_errmsg(-1));
    const char* raw = elf_rawfile(file.get(), &size);
    if (!raw) file.fail("cannot map the file contents");
    std::vector<DumpSegment> out;
    for (std::size_t i = 0; i < count; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(file.get(), static_cast<int>(i), &ph)) file.fail("bad program header " + std::to_string(i));
        if (ph.p_type != PT_LOAD || ph.p_filesz == 0) continue;
        if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
            file.fail("segment " + std::to_string(i) + " reaches past the end of the file (truncated dump?)");
        if (ph.p_vaddr + ph.p_filesz > 0x1'0000'0000ull) file.fail("segment " + std::to_string(i) + " wraps past the 4 GiB address space");
        out.push_back({static_cast<std::uint32_t>(ph.p_vaddr), {raw + ph.p_offset, raw + ph.p_offset + ph.p_filesz}});
    }
    if (out.empty()) file.fail("no PT_LOAD segment with contents: the core holds no memory");
    return out;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::vector<DumpSegment> read_intel_hex(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    std::vector<DumpSegment> out;
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    std::string line;
    std::uint32_t upper = 0;  // extended linear (04) or segment (02) address
    unsigned number = 0;
    bool ended = false;
    auto fail = [&](const std::string& what) { throw ConfigError(path + ": line " + std::to_string(number) + ": " + what); };
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (ended) fail("a record after the end-of-file record");
        // A record holds at most 255 data bytes: ':', 5 header and checksum bytes and the data, in hex.
        if (line[0] != ':' || line.size() < 11 || line.size() % 2 == 0) fail("not an Intel HEX record");
        if (line.size() > 1 + 2 * (5 + 255)) fail("a line of " + std::to_string(line.size()) + " characters: longer than any Intel HEX record");
        std::vector<std::uint8_t> rec;
        for (std::size_t i = 1; i < line.size(); i += 2) {
            const int high = hex_digit(line[i]), low = hex_digit(line[i + 1]);
            if (high < 0 || low < 0) fail("bad hex digits");
            rec.push_back(static_cast<std::uint8_t>(high << 4 | low));
        }
        const std::size_t len = rec[0];
        if (rec.size() != len + 5) fail("record length " + std::to_string(len) + " does not match the line");
        std::uint8_t sum = 0;
        for (std::uint8_t b : rec) sum = static_cast<std::uint8_t>(sum + b);
        if (sum != 0) fail("checksum mismatch");
        const std::uint32_t offset = static_cast<std::uint32_t>(rec[1]) << 8 | rec[2];
        const std::uint8_t* data = rec.data() + 4;
        switch (rec[3]) {
            case 0x00: {
                const std::uint32_t at = upper + offset;
                if (std::uint64_t{at} + len > 0x1'0000'0000ull) fail("data past the 4 GiB address space");
                if (out.empty() || out.back().base + out.back().bytes.size() != at) out.push_back({at, {}});
                out.back().bytes.insert(out.back().bytes.end(), data, data + len);
                break;
            }
            case 0x01: ended = true; break;
            case 0x02:
                if (len != 2) fail("extended segment address record of length " + std::to_string(len));
                upper = (static_cast<std::uint32_t>(data[0]) << 8 | data[1]) << 4;
                break;
            case 0x04:
                if (len != 2) fail("extended linear address record of length " + std::to_string(len));
                upper = (static_cast<std::uint32_t>(data[0]) << 8 | data[1]) << 16;
                break;
            case 0x03:
            case 0x05: break;  // start addresses: not memory
            default: fail("unknown record type " + std::to_string(rec[3]));
        }
    }
    if (out.empty()) throw ConfigError(path + ": no data records: the file holds no memory");
    if (!ended) throw ConfigError(path + ": no end-of-file record (:00000001FF): the file is cut short");
    return out;
}

}  // namespace

std::optional<std::uint32_t> parse_dump_base(const std::string& text) {
    if (text.empty()) return std::nullopt;
    auto v = config::parse_integer(text);
    if (!v || *v > 0xFFFFFFFFu) throw ConfigError("--base: expected an address such as 0x20000000, got '" + text + "'");
    return static_cast<std::uint32_t>(*v);
}

MemoryDump MemoryDump::load(const std::string& path, std::optional<std::uint32_t> base) {
    std::vector<std::uint8_t> bytes = read_all(path);
    MemoryDump d;
    if (bytes.size() >= 4 && bytes[0] == 0x7F && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') {
        if (base) throw ConfigError(path + ": an ELF core names its own addresses: --base is for raw dumps");
        d.segments_ = read_elf(path);
        d.format_ = "ELF";
    } else if (!bytes.empty() && bytes[0] == ':') {
        if (base) throw ConfigError(path + ": Intel HEX names its own addresses: --base is for raw dumps");
        d.segments_ = read_intel_hex(path, bytes);
        d.format_ = "Intel HEX";
    } else {
        if (!base) throw ConfigError(path + ": a raw binary dump (neither ELF nor Intel HEX): give its address with --base, e.g. --base 0x20000000");
        if (bytes.empty()) throw ConfigError(path + ": empty dump");
        if (*base + static_cast<std::uint64_t>(bytes.size()) > 0x1'0000'0000ull)
            throw ConfigError(path + ": " + std::to_string(bytes.size()) + " bytes at the --base address reach past 4 GiB");
        d.segments_.push_back({*base, std::move(bytes)});
        d.format_ = "raw binary";
    }
    return d;
}

void MemoryDump::save_elf_core(const std::string& path, const std::vector<DumpRange>& ranges, const DumpReader& read) {
    // The layout gdb's gcore writes for a bare-metal target, without notes: header, program
    // headers, then each range's bytes.
    std::uint64_t size = sizeof(Elf32_Ehdr) + ranges.size() * sizeof(Elf32_Phdr);
    for (const DumpRange& r : ranges) size += r.size;
    if (size > 0xFFFF'FFFFull)
        throw ConfigError(path + ": the RAM regions add up to " + std::to_string(size) + " bytes, more than a 32-bit ELF core file holds");
    Elf32_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS32;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_CORE;
    eh.e_machine = EM_ARM;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof eh;
    eh.e_flags = EF_ARM_EABI_VER5;
    eh.e_ehsize = sizeof eh;
    eh.e_phentsize = sizeof(Elf32_Phdr);
    eh.e_phnum = static_cast<Elf32_Half>(ranges.size());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw ConfigError(path + ": cannot write the memory dump: " + std::strerror(errno));
    out.write(reinterpret_cast<const char*>(&eh), sizeof eh);
    std::uint32_t offset = sizeof eh + static_cast<std::uint32_t>(ranges.size() * sizeof(Elf32_Phdr));
    for (const DumpRange& r : ranges) {
        Elf32_Phdr ph{};
        ph.p_type = PT_LOAD;
        ph.p_offset = offset;
        ph.p_vaddr = ph.p_paddr = r.base;
        ph.p_filesz = ph.p_memsz = r.size;
        ph.p_flags = PF_R | PF_W;
        ph.p_align = 1;
        out.write(reinterpret_cast<const char*>(&ph), sizeof ph);
        offset += r.size;
    }
    constexpr std::uint32_t kPiece = 1u << 20;
    for (const DumpRange& r : ranges)
        for (std::uint64_t done = 0; done < r.size && out;) {
            auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(kPiece, r.size - done));
            auto address = static_cast<std::uint32_t>(r.base + done);
            std::vector<std::uint8_t> bytes = read(address, n);
            if (bytes.size() != n) throw ConfigError(path + ": cannot read memory at " + config::hex32(address) + " for the memory dump");
            out.write(reinterpret_cast<const char*>(bytes.data()), n);
            done += n;
        }
    out.close();  // a full disk shows at the close
    if (!out) throw ConfigError(path + ": writing the memory dump failed: " + std::strerror(errno ? errno : EIO));
}

}  // namespace emutrace::decode
