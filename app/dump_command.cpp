#include <cstdio>
#include <optional>
#include <string>

#include "analysis/calltrace/compact_trace.h"
#include "app/commands.h"
#include "decode/elf_image.h"

namespace emutrace::app {

int dump_command(const std::string& trace_path, const std::string& elf) {
    analysis::CompactTrace t = analysis::read_compact_trace(trace_path);
    std::optional<decode::ElfImage> image;
    if (!elf.empty()) image = decode::ElfImage::load(elf);
    auto name = [&](std::uint32_t address) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "0x%08x", address);
        return image ? image->symbols().describe(address) : std::string(buf);
    };
    std::printf("%s: %zu records (the most recent of %llu seen; ring of %u), %.6g MHz\n", trace_path.c_str(), t.records.size(),
                static_cast<unsigned long long>(t.seen), t.capacity, static_cast<double>(t.clock_hz) / 1e6);
    std::printf("%14s %14s  %-12s %s\n", "cycle", "time (us)", "thread", "event");
    // Two spaces a call level, up to 32 levels; deeper ones (a deep recursion, or a corrupt record's
    // depth of billions) show their depth instead of a line as wide as it.
    auto indent = [](std::uint32_t depth) {
        return depth <= 32 ? std::string(2 * depth, ' ') : std::string(64, ' ') + "[depth " + std::to_string(depth) + "] ";
    };
    for (const auto& r : t.records) {
        std::string thread = r.thread < t.threads.size() ? t.threads[r.thread] : std::to_string(r.thread);
        double us = static_cast<double>(r.cycle) * 1e6 / static_cast<double>(t.clock_hz);
        std::string what;
        switch (r.kind) {
            case 0: what = indent(r.payload) + "> " + name(r.value); break;
            case 1: what = indent(r.payload) + "< " + name(r.value); break;
            case 2: what = "* user event " + std::to_string(r.value) + " payload " + std::to_string(r.payload); break;
            case 3: what = "! exception " + std::to_string(r.value) + " entry"; break;
            case 4: what = "! exception " + std::to_string(r.value) + " return"; break;
        }
        std::printf("%14llu %14.3f  %-12s %s\n", static_cast<unsigned long long>(r.cycle), us, thread.substr(0, 12).c_str(), what.c_str());
    }
    return 0;
}

}  // namespace emutrace::app
