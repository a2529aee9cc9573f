#include "sources/ptm/snapshot_writer.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "decode/elf_image.h"
#include "emutrace/config_error.h"

namespace emutrace::decode {
namespace {

namespace fs = std::filesystem;

// The names inside the snapshot; the .ini layout and key spelling follow DS-5's own snapshots.
const std::string core_file = "device1.ini";
const std::string unit_file = "device2.ini";

std::string hex(std::uint32_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08X", value);
    return text;
}

void write_file(const fs::path& path, const char* data, std::size_t size) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (out) out.write(data, static_cast<std::streamsize>(size));
    out.close();
    if (!out) throw ConfigError(path.string() + ": cannot write the snapshot file");
}

void write_text(const fs::path& path, const std::string& text) {
    write_file(path, text.data(), text.size());
}

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
    write_file(path, reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string dump_file(const SnapshotSpec& spec, std::size_t index) {
    return "mem_" + spec.core_name + "_" + std::to_string(index) + ".bin";
}

std::string snapshot_ini() {
    return "[snapshot]\nversion=1.0\n\n"
           "[device_list]\ndevice1=" +
           core_file + "\ndevice2=" + unit_file +
           "\n\n"
           "[trace]\nmetadata=trace.ini\n";
}

// Memory on an M-profile core is all Secure, which is what the PTM's I-sync reports.
std::string core_ini(const SnapshotSpec& spec) {
    std::ostringstream ini;
    ini << "[device]\nname=" << spec.core_name << "\nclass=core\ntype=" << spec.core_type << "\n";
    for (std::size_t i = 0; i < spec.memory.size(); ++i)
        ini << "\n[dump" << i + 1 << "]\nspace=S\naddress=" << hex(spec.memory[i].address) << "\nfile=" << dump_file(spec, i)
            << "\nlength=" << hex(static_cast<std::uint32_t>(spec.memory[i].bytes.size())) << "\n";
    return ini.str();
}

std::string unit_ini(const SnapshotSpec& spec) {
    const PtmRegisters& ptm = spec.ptm;
    return "[device]\nname=" + spec.unit_name + "\nclass=trace_source\ntype=" + spec.unit_type +
           "\n\n"
           "[regs]\n"
           "ETMCR(id:0x0)=" +
           hex(ptm.ctrl) +
           "\n"
           "ETMIDR(id:0x79)=" +
           hex(ptm.idr) +
           "\n"
           "ETMCCER(id:0x7A)=" +
           hex(ptm.ccer) +
           "\n"
           "ETMTRACEIDR(id:0x80)=" +
           hex(ptm.trace_id) + "\n";
}

// A formatted buffer is an ETB's, holding frames; a raw one is the PTM's own byte stream.
std::string buffer_name(const SnapshotSpec& spec) {
    return spec.formatted ? "ETB_0" : spec.unit_name;
}
std::string buffer_file(const SnapshotSpec& spec) {
    return spec.formatted ? "cstrace.bin" : spec.unit_name + ".bin";
}

std::string trace_ini(const SnapshotSpec& spec) {
    return "[trace_buffers]\nbuffers=buffer0\n\n"
           "[buffer0]\nname=" +
           buffer_name(spec) + "\nfile=" + buffer_file(spec) + "\nformat=" + (spec.formatted ? "coresight" : "source_data") +
           "\n\n"
           "[source_buffers]\n" +
           spec.unit_name + "=" + buffer_name(spec) +
           "\n\n"
           "[core_trace_sources]\n" +
           spec.core_name + "=" + spec.unit_name + "\n";
}

}  // namespace

std::vector<SnapshotMemory> code_images(const ElfImage& image) {
    std::vector<SnapshotMemory> out;
    for (const auto& s : image.segments())
        if (s.executable && !s.bytes.empty()) {
            out.push_back({s.virtual_address, s.bytes});
            out.back().bytes.resize(s.bytes.size() + 2);
        }
    return out;
}

void write_snapshot(const std::string& dir, const SnapshotSpec& given) {
    // OpenCSD 1.3.3's file memory accessor refuses a dump of odd length ("Failed to create memory
    // accessor", and every range then reads OCSD_GEN_TRC_ELEM_ADDR_NACC): each dump is padded with
    // zeros to a whole number of words.
    SnapshotSpec spec = given;
    for (auto& m : spec.memory) m.bytes.resize((m.bytes.size() + 3) & ~std::size_t{3});
    fs::path root(dir);
    std::error_code error;
    fs::create_directories(root, error);
    if (error || !fs::is_directory(root))
        throw ConfigError(dir + ": cannot create the snapshot directory" + (error ? " (" + error.message() + ")" : std::string()));
    write_text(root / "snapshot.ini", snapshot_ini());
    write_text(root / core_file, core_ini(spec));
    for (std::size_t i = 0; i < spec.memory.size(); ++i) write_bytes(root / dump_file(spec, i), spec.memory[i].bytes);
    write_text(root / unit_file, unit_ini(spec));
    write_text(root / "trace.ini", trace_ini(spec));
    write_bytes(root / buffer_file(spec), spec.trace);
}

}  // namespace emutrace::decode
