#include "silicon/silicon_suite.h"

#include <archive.h>
#include <archive_entry.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include "config/config_error.h"
#include "config/units.h"
#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"
#include "emu/machine.h"
#include "silicon/msgpack_json.h"

namespace emutrace::silicon {
namespace {

constexpr std::size_t kMostCodeLines = 64;

std::string archive_error(archive* a) {
    const char* e = archive_error_string(a);
    return e ? e : "unknown error";
}

struct Entry {
    std::vector<std::uint8_t> flash, dump;
};

// Sizes an archive's members may claim: a flash image or a dump of a few MiB at most, so that a
// hostile archive (members of zeros that compress to nothing) cannot take the host's memory.
constexpr la_int64_t kMostMemberBytes = 32 << 20;
constexpr std::size_t kMostPendingBytes = 64 << 20;  ///< members read whose other half has not come yet

// Calls `run` with each configuration of the archive as soon as both its members have been read
// (libarchive streams the zstd-compressed tar), so that only unpaired members are held.
template <typename Run>
void for_each_configuration(const std::string& path, Run&& run) {
    std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
    archive_read_support_filter_all(a.get());
    archive_read_support_format_tar(a.get());
    if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
        throw ConfigError(path + ": cannot read the archive (" + archive_error(a.get()) + ")");
    std::map<std::uint32_t, Entry> pending;
    std::size_t pending_bytes = 0;
    archive_entry* e = nullptr;
    for (;;) {
        int rc = archive_read_next_header(a.get(), &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc != ARCHIVE_OK) throw ConfigError(path + ": corrupt archive (" + archive_error(a.get()) + ")");
        std::filesystem::path member(archive_entry_pathname(e));
        std::string stem = member.stem().string(), ext = member.extension().string();
        bool numbered = !stem.empty() && stem.size() <= 6 && std::all_of(stem.begin(), stem.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        if ((ext != ".flash" && ext != ".dump") || !numbered) continue;
        la_int64_t size = archive_entry_size(e);
        if (size < 0 || size > kMostMemberBytes)
            throw ConfigError(path + ": " + member.string() + " claims " + std::to_string(size) + " bytes (at most " +
                              std::to_string(kMostMemberBytes >> 20) + " MiB)");
        if (pending_bytes + static_cast<std::size_t>(size) > kMostPendingBytes)
            throw ConfigError(path + ": more than " + std::to_string(kMostPendingBytes >> 20) +
                              " MiB of members without their other half (N.flash and N.dump belong together)");
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
        if (size && archive_read_data(a.get(), bytes.data(), bytes.size()) != size)
            throw ConfigError(path + ": " + member.string() + " is cut short");
        auto number = static_cast<std::uint32_t>(std::stoul(stem));
        Entry& entry = pending[number];
        std::vector<std::uint8_t>& half = ext == ".flash" ? entry.flash : entry.dump;
        if (!half.empty()) throw ConfigError(path + ": " + member.string() + " appears twice");
        pending_bytes += bytes.size();
        half = std::move(bytes);
        if (entry.flash.empty() || entry.dump.empty()) continue;
        pending_bytes -= entry.flash.size() + entry.dump.size();
        Entry whole = std::move(entry);
        pending.erase(number);
        run(number, whole);
    }
    for (const auto& [number, entry] : pending) run(number, entry);  // a half alone: run_configuration says which is missing
}

std::uint32_t address_field(const nlohmann::json& dump, const char* key, const std::string& where) {
    auto it = dump.find(key);
    if (it == dump.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > 0xFFFFFFFFu)
        throw ConfigError(where + ": '" + key + "' is missing or not an address");
    return it->get<std::uint32_t>();
}

struct Flash {
    std::uint32_t base = 0, size = 0;
};

// Where the .flash images go: the region that holds the board's vector table, else its lowest
// read-only plain region.
Flash board_flash(const emu::MachineConfig& c) {
    const emu::MemoryRegion* flash = nullptr;
    for (const auto& r : c.memory) {
        if (r.mmio) continue;
        if (c.vector_table) {
            if (*c.vector_table >= r.base && *c.vector_table - r.base < r.size) return {*c.vector_table, r.base + r.size - *c.vector_table};
        } else if (!(r.access & emu::AccessWrite) && (!flash || r.base < flash->base)) {
            flash = &r;
        }
    }
    if (!flash) throw ConfigError("the board has no flash for the .flash images: no plain region holds its vector_table, or none is read-only");
    return {flash->base, flash->size};
}

std::string stop_reason(const emu::RunResult& r, const SiliconRunOptions& o, std::uint32_t exit) {
    std::string where = " before the exit at " + config::hex32(exit) + " (pc " + config::hex32(r.pc) + ")";
    if (r.reason == emu::StopReason::MaxInstructions)
        return "stopped at the instruction limit, " + std::to_string(o.max_instructions) + " instructions," + where;
    if (r.reason == emu::StopReason::WallClock)
        return "stopped at the time limit, " + std::to_string(static_cast<long long>(o.wall_clock_seconds)) + " s of host time," + where;
    return r.message.empty() ? std::string(emu::to_string(r.reason)) : r.message;
}

std::vector<std::string> measured_code(const emu::Machine& m, const nlohmann::json& dump) {
    auto symbols = dump.find("symbols");
    if (symbols == dump.end() || !symbols->is_object()) return {};
    auto at = [&](const char* name) -> std::uint32_t {
        auto it = symbols->find(name);
        return it != symbols->end() && it->is_number_unsigned() ? it->get<std::uint32_t>() : 0;
    };
    std::uint32_t from = at("benchmarkCode"), to = at("end_label");
    if (!from || to <= from || to - from > 4096) return {};
    std::string config = dump.value("configuration_name", "");
    if (config.find("'code': 'sram'") != std::string::npos && at("tested_code")) {  // the copy the test runs
        to = at("tested_code") + (to - from);
        from = at("tested_code");
    }
    std::vector<std::uint8_t> bytes = m.read_memory(from & ~1u, to - (from & ~1u));
    std::vector<std::string> lines;
    decode::InstructionDecoder decoder;
    for (const auto& insn : decoder.decode(bytes, from & ~1u)) {
        if (lines.size() == kMostCodeLines) break;
        lines.push_back(config::hex32(insn.address) + "  " + insn.text);
    }
    return lines;
}

SiliconConfiguration run_configuration(const std::string& where, std::uint32_t number, const Entry& entry, const SiliconRunOptions& o) {
    SiliconConfiguration c;
    c.number = number;
    std::string file = where + ":" + std::to_string(number);
    if (entry.flash.empty() || entry.dump.empty()) throw ConfigError(file + ": needs both " + std::to_string(number) + ".flash and .dump");
    nlohmann::json dump = msgpack_to_json(entry.dump, file + ".dump");
    if (!dump.is_object()) throw ConfigError(file + ".dump: not a MessagePack map");
    c.name = dump.value("configuration_name", "");
    std::uint32_t main = address_field(dump, "emulator_main_addr", file), exit = address_field(dump, "emulator_exit_addr", file);

    emu::MachineConfig board = o.board();
    Flash flash = board_flash(board);
    if (entry.flash.size() > flash.size) throw ConfigError(file + ".flash: larger than the board's flash at " + config::hex32(flash.base));
    board.vector_table = flash.base;
    board.entry = main;
    board.trace_enabled = true;  // the board's start-up code, skipped, turns the DWT on
    board.stop.at_symbol.clear();
    board.stop.at_address = exit;
    board.stop.on_hang = false;  // the exit is a branch-to-self
    board.stop.max_instructions = o.max_instructions;
    board.stop.wall_clock_seconds = o.wall_clock_seconds;
    board.echo_output = false;
    // The test programs do not use the vendor peripherals between main and exit; reads there are 0.
    board.unclaimed_mmio = emu::UnclaimedMmio::Log;

    decode::ElfImage image = decode::ElfImage::raw(file + ".flash", {flash.base}, entry.flash);
    emu::Machine m(std::move(board), image);
    emu::RunResult r = m.run();
    c.instructions = r.instructions;
    if (r.reason != emu::StopReason::SymbolReached) {
        c.error = stop_reason(r, o, exit);
        return c;
    }
    c.exact = true;
    for (const auto& region : dump.value("mem_dump", nlohmann::json::array())) {
        std::string name = region.value("symbol_name", "?");
        std::uint32_t addr = address_field(region, "addr", file + " mem_dump " + name);
        const nlohmann::json& content = region.at("content");
        std::vector<std::uint8_t> measured =
            content.is_binary() ? std::vector<std::uint8_t>(content.get_binary()) : content.get<std::vector<std::uint8_t>>();
        std::vector<std::uint8_t> emulated = m.read_memory(addr, static_cast<std::uint32_t>(measured.size()));
        if (emulated.size() != measured.size()) {
            c.exact = false;
            c.error = name + " at " + config::hex32(addr) + " is not in the emulated memory map";
            continue;
        }
        RegionWords& words = c.regions.emplace_back(RegionWords{name});
        for (std::size_t i = 0; i + 4 <= measured.size(); i += 4) {
            auto word = [&](const std::vector<std::uint8_t>& b) {
                return static_cast<std::uint32_t>(b[i] | b[i + 1] << 8 | b[i + 2] << 16 | static_cast<std::uint32_t>(b[i + 3]) << 24);
            };
            WordMismatch w{name, static_cast<std::uint32_t>(i / 4), word(measured), word(emulated)};
            const auto abs_error = static_cast<std::uint64_t>(w.error() < 0 ? -w.error() : w.error());
            ++words.words;
            words.abs_error += abs_error;
            if (w.measured) {
                ++words.nonzero;
                words.relative_error += static_cast<double>(abs_error) / w.measured;
            }
            if (w.measured == w.emulated) continue;
            c.exact = false;
            c.mismatches.push_back(std::move(w));
        }
        if (measured.size() % 4 && !std::equal(measured.end() - measured.size() % 4, measured.end(), emulated.end() - measured.size() % 4))
            c.exact = false;
    }
    if (!c.exact) c.code = measured_code(m, dump);
    return c;
}

}  // namespace

std::string_view to_string(Split split) {
    switch (split) {
        case Split::Given: return "given";
        case Split::Validation: return "validation";
        case Split::All: break;
    }
    return "all";
}

std::size_t SiliconTest::exact() const {
    return static_cast<std::size_t>(std::count_if(configurations.begin(), configurations.end(), [](const auto& c) { return c.exact; }));
}

std::vector<SiliconTest> run_silicon_suite(const std::string& dir, const SiliconRunOptions& options,
                                           const std::function<void(const SiliconTest&)>& progress) {
    if (!options.board) throw ConfigError("silicon: no board to run on");
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) throw ConfigError(dir + ": not a directory of silicon measurements");
    std::vector<std::filesystem::path> archives;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
        if (e.is_regular_file() && e.path().extension() == ".tzst") archives.push_back(e.path());
    if (ec) throw ConfigError(dir + ": " + ec.message());
    if (archives.empty()) throw ConfigError(dir + ": no <category>/<test>.tzst archives");
    std::sort(archives.begin(), archives.end());
    std::vector<SiliconTest> tests;
    std::map<std::filesystem::path, std::size_t> in_category;  // archives seen so far per category folder
    for (const auto& path : archives) {
        SiliconTest t;
        t.category = path.parent_path().filename().string();
        t.name = path.stem().string();
        t.validation = in_validation_set(in_category[path.parent_path()]++);
        if ((options.split == Split::Given && t.validation) || (options.split == Split::Validation && !t.validation)) continue;
        try {
            for_each_configuration(path.string(), [&](std::uint32_t number, const Entry& entry) {
                t.configurations.push_back(run_configuration(path.string(), number, entry, options));
            });
            std::sort(t.configurations.begin(), t.configurations.end(), [](const auto& x, const auto& y) { return x.number < y.number; });
        } catch (const nlohmann::json::exception& e) {
            throw ConfigError(path.string() + ": malformed dump (" + e.what() + ")");
        }
        if (progress) progress(t);
        tests.push_back(std::move(t));
    }
    return tests;
}

}  // namespace emutrace::silicon
