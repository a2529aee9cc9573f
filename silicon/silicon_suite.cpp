#include "silicon/silicon_suite.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include "config/units.h"
#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"
#include "emu/machine.h"
#include "emu/stop_signal.h"
#include "emutrace/config_error.h"
#include "silicon/configuration_pool.h"
#include "silicon/silicon_archive.h"

namespace emutrace::silicon {
namespace {

constexpr std::size_t kMostCodeLines = 64;

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

std::uint32_t word_at(const std::vector<std::uint8_t>& b, std::size_t i) {
    return static_cast<std::uint32_t>(b[i] | b[i + 1] << 8 | b[i + 2] << 16 | static_cast<std::uint32_t>(b[i + 3]) << 24);
}

// The host time a configuration may take: the runner's bound, or longer for a program the board
// measured as long (a wrapped CYCCNT only shortens it, to the runner's bound at least).
double host_seconds(const MeasuredConfiguration& measured, const SiliconRunOptions& o) {
    if (o.wall_clock_seconds <= 0) return 0;
    for (const MeasuredRegion& region : measured.regions)
        if (region.name == kWholeProgramRegion && region.bytes.size() >= 4)
            return std::max(o.wall_clock_seconds, word_at(region.bytes, 0) / 1e6 * o.seconds_per_million_measured_cycles);
    return o.wall_clock_seconds;
}

std::string stop_reason(const emu::RunResult& r, const SiliconRunOptions& o, std::uint32_t exit, double seconds) {
    std::string where = " before the exit at " + config::hex32(exit) + " (pc " + config::hex32(r.pc) + ")";
    if (r.reason == emu::StopReason::MaxInstructions)
        return "stopped at the instruction limit, " + std::to_string(o.max_instructions) + " instructions," + where;
    if (r.reason == emu::StopReason::WallClock)
        return "stopped at the time limit, " + std::to_string(static_cast<long long>(seconds)) + " s of host time," + where;
    return r.message.empty() ? std::string(emu::to_string(r.reason)) : r.message;
}

std::vector<std::string> measured_code(const emu::Machine& m, const MeasuredConfiguration& measured) {
    if (measured.code_to <= measured.code_from) return {};
    std::vector<std::uint8_t> bytes = m.read_memory(measured.code_from, measured.code_to - measured.code_from);
    std::vector<std::string> lines;
    decode::InstructionDecoder decoder;
    for (const auto& insn : decoder.decode(bytes, measured.code_from)) {
        if (lines.size() == kMostCodeLines) break;
        lines.push_back(config::hex32(insn.address) + "  " + insn.text);
    }
    return lines;
}

SiliconConfiguration run_configuration(const std::string& where, const MeasuredConfiguration& measured, const SiliconRunOptions& o) {
    SiliconConfiguration c;
    c.number = measured.number;
    c.name = measured.name;
    std::string file = where + ":" + std::to_string(measured.number);
    emu::MachineConfig board = o.board();
    Flash flash = board_flash(board);
    if (measured.flash.size() > flash.size) throw ConfigError(file + ".flash: larger than the board's flash at " + config::hex32(flash.base));
    board.vector_table = flash.base;
    board.entry = measured.main;
    board.trace_enabled = true;  // the board's start-up code, skipped, turns the DWT on
    board.stop.at_symbol.clear();
    board.stop.at_address = measured.exit;
    board.stop.on_hang = false;  // the exit is a branch-to-self
    board.stop.max_instructions = o.max_instructions;
    board.stop.wall_clock_seconds = host_seconds(measured, o);
    board.echo_output = false;
    // The test programs do not use the vendor peripherals between main and exit; reads there are 0.
    board.unclaimed_mmio = emu::UnclaimedMmio::Log;

    decode::ElfImage image = decode::ElfImage::raw(file + ".flash", {flash.base}, measured.flash);
    emu::Machine m(std::move(board), image);
    emu::RunResult r = m.run();
    c.instructions = r.instructions;
    if (r.reason != emu::StopReason::SymbolReached) {
        c.error = stop_reason(r, o, measured.exit, host_seconds(measured, o));
        return c;
    }
    c.exact = true;
    for (const MeasuredRegion& region : measured.regions) {
        const std::string& name = region.name;
        const std::vector<std::uint8_t>& bytes = region.bytes;
        std::vector<std::uint8_t> emulated = m.read_memory(region.address, static_cast<std::uint32_t>(bytes.size()));
        if (emulated.size() != bytes.size()) {
            c.exact = false;
            c.error = name + " at " + config::hex32(region.address) + " is not in the emulated memory map";
            continue;
        }
        RegionWords& words = c.regions.emplace_back(RegionWords{name});
        if (name == kWholeProgramRegion && bytes.size() >= 4) c.whole_program = WholeProgram{word_at(bytes, 0), word_at(emulated, 0)};
        for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
            WordMismatch w{name, static_cast<std::uint32_t>(i / 4), word_at(bytes, i), word_at(emulated, i)};
            const auto abs_error = static_cast<std::uint64_t>(w.error() < 0 ? -w.error() : w.error());
            ++words.words;
            words.abs_error += abs_error;
            if (w.measured) {
                ++words.nonzero;
                words.relative_error += static_cast<double>(abs_error) / w.measured;
            }
            ++words.bins[error_bin(w.error())];
            if (w.measured == w.emulated) continue;
            c.exact = false;
            if (++c.mismatched_words <= kMostMismatchesKept) c.mismatches.push_back(std::move(w));
        }
        if (bytes.size() % 4 && !std::equal(bytes.end() - bytes.size() % 4, bytes.end(), emulated.end() - bytes.size() % 4)) c.exact = false;
    }
    if (!c.exact) c.code = measured_code(m, measured);
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
                                           const std::function<void(const SiliconTest&)>& progress,
                                           const std::function<void(const SuiteStatus&)>& watch) {
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
    std::vector<std::filesystem::path> paths;                  // of tests[i]
    std::map<std::filesystem::path, std::size_t> in_category;  // archives seen so far per category folder
    for (const auto& path : archives) {
        SiliconTest t;
        t.category = path.parent_path().filename().string();
        t.name = path.stem().string();
        t.validation = in_validation_set(in_category[path.parent_path()]++);
        if ((options.split == Split::Given && t.validation) || (options.split == Split::Validation && !t.validation)) continue;
        tests.push_back(std::move(t));
        paths.push_back(path);
    }
    std::mutex board_made;  // the board's description is read by one worker at a time
    SiliconRunOptions each = options;
    each.board = [&] {
        std::lock_guard lock(board_made);
        return options.board();
    };
    ConfigurationPool pool(
        tests, options.jobs,
        [&each](const std::string& where, const MeasuredConfiguration& measured) { return run_configuration(where, measured, each); }, progress,
        watch);
    std::size_t read = 0;
    for (; read < tests.size() && !emu::stop_signal(); ++read) {  // a signal: the tests read so far are the run
        read_silicon_archive(paths[read].string(),
                             [&](MeasuredConfiguration&& measured) { pool.add(read, paths[read].string(), std::move(measured)); });
        pool.archive_read(read);
    }
    pool.finish();
    tests.resize(read);
    return tests;
}

}  // namespace emutrace::silicon
