#include "analysis/writers/mmio_log.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "report/html.h"

namespace emutrace::analysis {

void MmioLog::on_start(const trace::RunInfo& info) {
    names_.start(info);
}

void MmioLog::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        if (e.kind != trace::EventKind::MmioRead && e.kind != trace::EventKind::MmioWrite) continue;
        const bool write = e.kind == trace::EventKind::MmioWrite;
        const std::uint64_t key = std::uint64_t{e.channel} << 32 | register_at(e.channel, e.extra);
        if (key != last_key_) {
            auto [it, fresh] = counts_.try_emplace(key);
            if (fresh) it->second.first = e.cycle;
            last_key_ = key, last_count_ = &it->second;
        }
        ++(write ? last_count_->writes : last_count_->reads);
        last_count_->last = e.cycle;
        if (!keep_each_) continue;
        if (accesses_.size() >= kMaxAccesses) {
            ++dropped_;
            continue;
        }
        accesses_.add({e.cycle, e.extra, e.value, e.channel, e.width, write});
    }
}

std::uint32_t MmioLog::register_at(std::uint16_t device, std::uint32_t offset) const {
    const trace::DeviceRegister* r = names_.register_at(device, offset);
    return r ? r->offset : offset;
}

std::string MmioLog::report_html(std::uint64_t clock_hz, std::size_t rows) const {
    if (counts_.empty()) return {};
    std::vector<std::pair<std::uint64_t, const Count*>> used;
    for (const auto& [key, c] : counts_) used.emplace_back(key, &c);
    std::stable_sort(used.begin(), used.end(),
                     [](const auto& a, const auto& b) { return a.second->reads + a.second->writes > b.second->reads + b.second->writes; });
    report::Table t;
    t.headers = {"Register", "Reads", "Writes", "First", "Last"};
    t.numeric = {false, true, true, true, true};
    for (std::size_t i = 0; i < used.size() && i < rows; ++i) {
        const auto [key, c] = used[i];
        t.rows.push_back({report::escape(register_name(static_cast<std::uint16_t>(key >> 32), static_cast<std::uint32_t>(key))),
                          report::thousands(c->reads), report::thousands(c->writes), report::duration(static_cast<double>(c->first), clock_hz),
                          report::duration(static_cast<double>(c->last), clock_hz)});
    }
    std::string body =
        "<p class=\"note\">The device registers read and written in the run (by the firmware or a DMA channel), by the names the "
        "devices' SVDs give them; the most used first" +
        std::string(used.size() > rows ? " (" + std::to_string(rows) + " of " + std::to_string(used.size()) + ")" : "") +
        ". Every access is in <code>--events</code>, and with <code>--perfetto</code> on a track per device.</p>\n";
    return report::section("registers", "Device registers", body + t.html());
}

std::string MmioLog::register_name(std::uint16_t device, std::uint32_t offset) const {
    const std::string name = names_.device(device);
    if (const trace::DeviceRegister* r = names_.register_at(device, offset)) return name + "." + r->name;
    char at[16];
    std::snprintf(at, sizeof at, "+0x%x", offset);
    return name + at;
}

}  // namespace emutrace::analysis
