// An out-of-tree trace source: a probe's PC samples exported as text, one sample per line
// ("0x08000124", or "CYCLE 0x08000124" with the sample's cycle), read into the event model as
// one-instruction blocks, so that the analyses that want blocks (coverage, say) run on a
// probe's samples. Loaded with `emutrace decode pc-samples FILE --elf ELF --plugin
// libpc_samples.so --coverage`.
#include <emutrace/config_error.h>
#include <emutrace/plugin.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

using emutrace::trace::Event;
using emutrace::trace::EventKind;

class PcSamples final : public emutrace::trace::RecordedSource {
public:
    explicit PcSamples(std::string file) : file_(std::move(file)) {}
    void add_sink(emutrace::trace::TraceSink& sink) override { sinks_.push_back(&sink); }

    emutrace::SourceTotals deliver() override {
        std::ifstream in(file_);
        if (!in) throw emutrace::ConfigError(file_ + ": cannot read the PC samples");
        std::vector<Event> events;
        std::string line;
        for (std::size_t number = 1; std::getline(in, line); ++number) {
            std::istringstream words(line);
            std::string first, second;
            if (!(words >> first) || first[0] == '#') continue;
            const bool with_cycle = static_cast<bool>(words >> second);
            std::uint64_t cycle = with_cycle ? std::strtoull(first.c_str(), nullptr, 0) : events.size();
            char* end = nullptr;
            const std::string& pc = with_cycle ? second : first;
            unsigned long address = std::strtoul(pc.c_str(), &end, 16);
            if (*end || address > 0xffffffffUL)
                throw emutrace::ConfigError(file_ + ":" + std::to_string(number) + ": '" + pc.substr(0, 40) + "' is no code address");
            events.push_back(Event{cycle, static_cast<std::uint32_t>(address & ~1UL), 2, 1, EventKind::Block, 0, 0});
        }
        samples_ = events.size();
        const std::uint64_t last = events.empty() ? 0 : events.back().cycle;
        events.push_back(Event{last, 0, 0, 0, EventKind::Stop, 0, 0});
        emutrace::trace::RunInfo info;
        info.source = file_;
        for (auto* sink : sinks_) sink->on_start(info);
        for (auto* sink : sinks_) sink->on_batch({events, {}});
        for (auto* sink : sinks_) sink->on_end();
        emutrace::SourceTotals totals;
        totals.source = file_;
        totals.instructions = samples_;
        totals.cycles = last;
        return totals;
    }
    std::string summary() const override { return file_ + ": " + std::to_string(samples_) + " PC samples\n"; }
    std::string json() const override { return "{\"pc_samples\": " + std::to_string(samples_) + "}"; }
    int verdict(std::string& why) const override {
        if (samples_) return 0;
        why = file_ + ": no PC sample in it";
        return kNothingDecoded;
    }

private:
    std::string file_;
    std::vector<emutrace::trace::TraceSink*> sinks_;
    std::uint64_t samples_ = 0;
};

std::vector<emutrace::AnalysisType> no_analyses() {
    return {};
}

std::vector<emutrace::SourceType> sources() {
    emutrace::SourceType t;
    t.name = "pc-samples";
    t.summary = "a probe's PC samples as text, one per line, as one-instruction blocks";
    t.input = "a text file: a hex PC per line, or a cycle and a hex PC";
    t.open = [](const emutrace::AnalysisSetup&, const std::string& input) { return std::make_unique<PcSamples>(input); };
    return {t};
}

}  // namespace

EMUTRACE_PLUGIN_WITH_SOURCES(&no_analyses, &sources)
