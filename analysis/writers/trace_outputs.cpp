#include "analysis/writers/trace_outputs.h"

#include <filesystem>

#include "emutrace/config_error.h"
#include "sources/ptm/coresight_formatter.h"

namespace emutrace::analysis {

std::FILE* open_trace_outputs(const std::string& file, const std::string& snapshot, const std::string& what) {
    if (!snapshot.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(snapshot, ec);
        if (ec) throw ConfigError(snapshot + ": cannot create the snapshot directory (" + ec.message() + ")");
    }
    if (file.empty()) return nullptr;
    std::FILE* f = std::fopen(file.c_str(), "wb");
    if (!f) throw ConfigError(file + ": cannot write the " + what + " file");
    return f;
}

void write_trace_bytes(std::FILE* file, const std::string& path, std::span<const std::uint8_t> bytes, const std::string& what) {
    if (file && !bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size())
        throw ConfigError(path + ": writing the " + what + " failed");
}

void close_trace_file(std::FILE*& file, const std::string& path, const std::string& what) {
    if (!file) return;
    const bool closed = std::fclose(file) == 0;
    file = nullptr;
    if (!closed) throw ConfigError(path + ": writing the " + what + " failed");
}

void write_flow_snapshot(const std::string& dir, decode::SnapshotSpec unit, const std::string& cpu, const std::vector<std::uint8_t>& stream,
                         const decode::ElfImage& image) {
    if (!cpu.empty()) unit.core_name = cpu;
    unit.trace = decode::format_frames(stream, static_cast<std::uint8_t>(unit.ptm.trace_id));
    unit.formatted = true;
    unit.memory = decode::code_images(image);
    decode::write_snapshot(dir, unit);
}

}  // namespace emutrace::analysis
