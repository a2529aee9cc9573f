// ABI 1 plug-ins (emutrace 0.2.0) in today's registry: today's setup seen through ABI 1's
// AnalysisSetup, and ABI 1's Analysis seen through today's. What ABI 1 lacked (watch points,
// steering, checkpoints, report sections, campaigns) an old plug-in simply does not offer.
#include "analysis/plugin_abi/abi1.h"

#include "decode/in_tree_setup.h"

namespace emutrace::abi1 {
namespace {

class SetupOfToday final : public AnalysisSetup {
public:
    explicit SetupOfToday(const emutrace::AnalysisSetup& today) : today_(today) {}
    config::Node section(std::string_view key) const override { return today_.section(key); }
    std::string output(std::string_view key) const override { return today_.output(key); }
    std::optional<std::string> flag(std::string_view name) const override { return today_.flag(name); }
    const std::string& scenario_file() const override { return today_.scenario_file(); }
    const std::string& firmware() const override { return today_.firmware(); }
    std::optional<std::uint32_t> address_of(std::string_view symbol) const override { return today_.address_of(symbol); }
    std::string describe(std::uint32_t address) const override { return today_.describe(address); }
    std::uint64_t clock_hz() const override { return today_.clock_hz(); }
    bool emulated() const override { return today_.emulated(); }
    // ABI 1 handed out the ELF as an opaque type (its header was never installed).
    const decode::ElfImage& image() const override { return in_tree(today_).image(); }

private:
    const emutrace::AnalysisSetup& today_;
};

class AnalysisOfAbi1 final : public emutrace::Analysis {
public:
    AnalysisOfAbi1(std::unique_ptr<SetupOfToday> setup, std::unique_ptr<abi1::Analysis> old) : setup_(std::move(setup)), old_(std::move(old)) {}
    std::vector<trace::TraceSink*> sinks() override { return old_->sinks(); }
    std::vector<std::uint32_t> trace_points() const override { return old_->trace_points(); }
    void finish(const SourceTotals& totals) override { old_->finish(totals); }
    std::string summary() const override { return old_->summary(); }
    std::string json() const override { return old_->json(); }
    std::vector<TestCase> test_cases() const override { return old_->test_cases(); }
    std::vector<std::string> failures() const override { return old_->failures(); }

private:
    std::unique_ptr<SetupOfToday> setup_;  // first: the old analysis may hold on to it until it goes
    std::unique_ptr<abi1::Analysis> old_;
};

}  // namespace

std::vector<emutrace::AnalysisType> adapt(const PluginInfo& info) {
    std::vector<emutrace::AnalysisType> out;
    for (AnalysisType& old : info.analyses ? info.analyses() : std::vector<AnalysisType>{}) {
        AnalysisFactory create = old.create;
        emutrace::AnalysisType t{
            std::move(old.name), std::move(old.summary), std::move(old.sections), std::move(old.outputs), std::move(old.flags), old.wants, nullptr};
        if (create)
            t.create = [create](const emutrace::AnalysisSetup& setup) -> std::unique_ptr<emutrace::Analysis> {
                auto adapted = std::make_unique<SetupOfToday>(setup);
                std::unique_ptr<Analysis> old_analysis = create(*adapted);
                if (!old_analysis) return nullptr;
                return std::make_unique<AnalysisOfAbi1>(std::move(adapted), std::move(old_analysis));
            };
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace emutrace::abi1
