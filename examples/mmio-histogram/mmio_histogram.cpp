// An out-of-tree analysis: MMIO accesses per device and register. Built against the installed
// emutrace package and loaded with `emutrace run --plugin libmmio_histogram.so`.
#include <emutrace/plugin.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>

namespace {

using emutrace::trace::EventKind;

class MmioHistogram final : public emutrace::Analysis, public emutrace::trace::TraceSink {
public:
    explicit MmioHistogram(std::size_t top) : top_(top) {}

    std::vector<emutrace::trace::TraceSink*> sinks() override { return {this}; }

    // TraceSink: MMIO events only; a map update per access, no allocation once a register is known.
    std::uint32_t wants() const override { return emutrace::trace::WantMmio; }
    void on_start(const emutrace::trace::RunInfo& info) override { devices_ = info.devices; }
    void on_batch(const emutrace::trace::EventBatch& batch) override {
        for (const auto& e : batch.events) {
            if (e.kind != EventKind::MmioRead && e.kind != EventKind::MmioWrite) continue;
            Counts& c = counts_[{e.channel, e.extra}];
            (e.kind == EventKind::MmioRead ? c.reads : c.writes) += 1;
        }
    }

    std::string summary() const override {
        std::string out = "mmio histogram (accesses per device register)\n";
        std::size_t shown = 0;
        for (const auto& [key, c] : counts_) {
            if (shown++ == top_) break;
            char line[160];
            std::snprintf(line, sizeof line, "  %-16s +0x%03x %10llu reads %10llu writes\n", device(key.first).c_str(), key.second,
                          static_cast<unsigned long long>(c.reads), static_cast<unsigned long long>(c.writes));
            out += line;
        }
        return out;
    }

    std::string json() const override {
        std::string out = "{\"registers\": [";
        bool first = true;
        for (const auto& [key, c] : counts_) {
            out += std::string(first ? "" : ", ") + "{\"device\": \"" + device(key.first) + "\", \"offset\": " + std::to_string(key.second) +
                   ", \"reads\": " + std::to_string(c.reads) + ", \"writes\": " + std::to_string(c.writes) + "}";
            first = false;
        }
        return out + "]}";
    }

private:
    struct Counts {
        std::uint64_t reads = 0, writes = 0;
    };
    std::string device(std::uint16_t index) const { return index < devices_.size() ? devices_[index] : "device" + std::to_string(index); }

    std::size_t top_;
    std::vector<std::string> devices_;
    std::map<std::pair<std::uint16_t, std::uint32_t>, Counts> counts_;
};

std::unique_ptr<emutrace::Analysis> create(const emutrace::AnalysisSetup& setup) {
    emutrace::config::Node section = setup.section("mmio_histogram");
    section.allow_only({"top"});
    if (!section.defined() && !setup.flag("mmio-histogram")) return nullptr;
    std::size_t top = section.has("top") ? section["top"].u32() : 20;
    return std::make_unique<MmioHistogram>(top);
}

std::vector<emutrace::AnalysisType> analyses() {
    return {{"mmio_histogram",
             "MMIO accesses per device and register offset",
             {"mmio_histogram"},
             {},
             {{"mmio-histogram", "", "Count MMIO accesses per device register"}},
             emutrace::trace::WantMmio,
             &create}};
}

}  // namespace

EMUTRACE_PLUGIN(analyses)
