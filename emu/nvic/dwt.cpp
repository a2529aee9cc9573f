#include "emu/nvic/dwt.h"

#include "emu/nvic/system_control.h"
#include "emutrace/event.h"

namespace emutrace::emu::nvic {
namespace {
enum Offset : std::uint32_t { CTRL = 0x00, CYCCNT = 0x04, CPICNT = 0x08, EXCCNT = 0x0C, SLEEPCNT = 0x10, LSUCNT = 0x14, FOLDCNT = 0x18, PCSR = 0x1C };
constexpr std::uint32_t PCSAMPLENA = 1u << 12, CYCTAP = 1u << 9;
constexpr std::uint32_t CYCCNTENA = 1u << 0, CPIEVTENA = 1u << 17, EXCEVTENA = 1u << 18, SLEEPEVTENA = 1u << 19, LSUEVTENA = 1u << 20,
                        FOLDEVTENA = 1u << 21;
constexpr std::uint32_t kNumComparators = Dwt::kComparators << 28;
constexpr std::uint32_t kFirstComparator = 0x20, kComparatorStride = 0x10, kMatched = 1u << 24, kEmitRange = 1u << 5, kCycMatch = 1u << 7,
                        kDataVMatch = 1u << 8;

// What a comparator's FUNCTION (ARMv7-M ARM C1.8.17, with DATAVMATCH and CYCMATCH clear) matches
// and traces. Watchpoint and ETM-trigger functions match (MATCHED) and trace nothing: no debugger
// halts here, and the ETM takes no trigger input.
struct FunctionUse {
    bool loads = false, stores = false;
    std::uint16_t parts = 0;  // trace::DataTraceParts
};
FunctionUse use_of(std::uint32_t function) {
    using namespace trace;
    const bool range = function & kEmitRange;
    switch (function & 0xF) {
        case 0x1: return {true, true, static_cast<std::uint16_t>(range ? kDataTraceOffset : kDataTracePc)};
        case 0x2: return {true, true, static_cast<std::uint16_t>(kDataTraceValue | (range ? kDataTraceOffset : 0))};
        case 0x3: return {true, true, static_cast<std::uint16_t>(kDataTraceValue | (range ? kDataTraceOffset : kDataTracePc))};
        case 0x5:
        case 0x9: return {true, false, 0};
        case 0x6:
        case 0xA: return {false, true, 0};
        case 0x7:
        case 0xB: return {true, true, 0};
        case 0xC: return {true, false, static_cast<std::uint16_t>(range ? kDataTraceOffset : kDataTraceValue)};
        case 0xD: return {false, true, static_cast<std::uint16_t>(range ? kDataTraceOffset : kDataTraceValue)};
        case 0xE: return {true, false, static_cast<std::uint16_t>(kDataTraceValue | (range ? kDataTraceOffset : kDataTracePc))};
        case 0xF: return {false, true, static_cast<std::uint16_t>(kDataTraceValue | (range ? kDataTraceOffset : kDataTracePc))};
        default: return {};  // disabled, or a PC match (0x4, 0x8): instruction addresses, not data
    }
}
}  // namespace

void Dwt::reset() {
    ctrl_ = 0;
    next_sample_ = 0;
    cyccnt_ = cpicnt_ = exccnt_ = sleepcnt_ = lsucnt_ = foldcnt_ = Counter{};
    const bool watching = !watched_.empty();
    for (Comparator& c : comparators_) c = Comparator{};
    if (watching) watch_comparators();
}

// The ranges the enabled comparators match: COMPn with MASKn low bits ignored.
void Dwt::watch_comparators() {
    std::vector<DataWatch> watches;
    watched_.clear();
    for (unsigned n = 0; n < kComparators; ++n) {
        const Comparator& c = comparators_[n];
        const FunctionUse use = use_of(c.function);
        if ((!use.loads && !use.stores) || (c.function & (kCycMatch | kDataVMatch))) continue;  // cycle and value matches: not modelled
        watches.push_back({c.base(), c.size(), use.loads, use.stores, (use.parts & trace::kDataTracePc) != 0});
        watched_.push_back(n);
    }
    host().watch_data(std::move(watches));
}

// The hooks change at the next block boundary: until then an access a comparator no longer
// matches (its registers written since, in the same block) is not its.
void Dwt::on_data_access(unsigned watch, const DataAccess& access) {
    if (watch >= watched_.size()) return;
    const unsigned n = watched_[watch];
    Comparator& c = comparators_[n];
    const FunctionUse use = use_of(c.function);
    if (!(access.store ? use.stores : use.loads) || (access.address & ~(c.size() - 1)) != c.base()) return;
    c.matched = true;
    if (use.parts && scs_.trace_enabled()) host().data_trace(n, access, use.parts);
}

std::uint32_t Dwt::read_comparator(std::uint32_t offset) {
    Comparator& c = comparators_[(offset - kFirstComparator) / kComparatorStride];
    switch ((offset - kFirstComparator) % kComparatorStride) {
        case 0x0: return c.comp;
        case 0x4: return c.mask;
        case 0x8: {
            const std::uint32_t v = c.function | (c.matched ? kMatched : 0);
            c.matched = false;  // MATCHED clears on read
            return v;
        }
        default: return 0;
    }
}

void Dwt::write_comparator(std::uint32_t offset, std::uint32_t value) {
    Comparator& c = comparators_[(offset - kFirstComparator) / kComparatorStride];
    switch ((offset - kFirstComparator) % kComparatorStride) {
        case 0x0: c.comp = value; break;
        case 0x4: c.mask = value & 0x1F; break;
        case 0x8: c.function = value & 0x000FFFAFu; break;  // FUNCTION, EMITRANGE, CYCMATCH, DATAV*; MATCHED is read-only
        default: return;
    }
    watch_comparators();
}

// CPICNT counts what the other counters do not (ARMv7-M ARM C1.8.10): cycles = instructions + CPI
// + LSU + exception + sleep - fold. So refills, fetch stalls and multi-cycle data processing.
std::uint64_t Dwt::cpi_source(const CycleCounters& c) {
    return c.cycles + c.fold - c.instructions - lsu_source(c) - c.sleep - c.exception;
}

std::uint64_t Dwt::sample_period() const {
    return (std::uint64_t{ctrl_ >> 1 & 0xF} + 1) * (ctrl_ & CYCTAP ? 1024 : 64);
}

void Dwt::on_time(std::uint64_t now) {
    if (!(ctrl_ & PCSAMPLENA) || !scs_.trace_enabled()) return;  // turned off: no more wakes
    host().sample_pc();
    const std::uint64_t period = sample_period();
    while (next_sample_ <= now) next_sample_ += period;  // a wake late by more than a period samples once
    host().wake_at(next_sample_);
}

std::uint32_t Dwt::read(std::uint32_t offset, unsigned width) {
    const CycleCounters& c = current();
    std::uint32_t v = 0;
    switch (offset & ~3u) {
        case CTRL: v = ctrl_ | kNumComparators; break;
        case CYCCNT: v = cyccnt_.value(c.cycles); break;
        case CPICNT: v = cpicnt_.value(cpi_source(c)) & 0xFF; break;
        case EXCCNT: v = exccnt_.value(c.exception) & 0xFF; break;
        case SLEEPCNT: v = sleepcnt_.value(c.sleep) & 0xFF; break;
        case LSUCNT: v = lsucnt_.value(lsu_source(c)) & 0xFF; break;
        case FOLDCNT: v = foldcnt_.value(c.fold) & 0xFF; break;
        case PCSR: v = 0; break;
        default:
            if (offset >= kFirstComparator && offset < kFirstComparator + kComparators * kComparatorStride) {
                v = read_comparator(offset & ~3u);
                break;
            }
            host().warn_once(offset, "read of an unimplemented DWT register; reads 0");
            return 0;
    }
    v >>= (offset & 3) * 8;
    return width >= 4 ? v : v & ((1u << (width * 8)) - 1);
}

void Dwt::write(std::uint32_t offset, unsigned, std::uint32_t value) {
    const CycleCounters& c = current();
    if (!scs_.trace_enabled()) {
        host().warn_once(offset, "DWT write while DEMCR.TRCENA is 0; ignored as on silicon");
        return;
    }
    switch (offset & ~3u) {
        case CTRL:
            if (!(ctrl_ & PCSAMPLENA) && (value & PCSAMPLENA)) {
                next_sample_ = c.cycles + ((value >> 1 & 0xF) + 1) * (value & CYCTAP ? 1024 : 64);
                host().wake_at(next_sample_);
            }
            ctrl_ = value & 0x0FFFFFFFu;
            cyccnt_.set_enabled(value & CYCCNTENA, c.cycles);
            cpicnt_.set_enabled(value & CPIEVTENA, cpi_source(c));
            exccnt_.set_enabled(value & EXCEVTENA, c.exception);
            sleepcnt_.set_enabled(value & SLEEPEVTENA, c.sleep);
            lsucnt_.set_enabled(value & LSUEVTENA, lsu_source(c));
            foldcnt_.set_enabled(value & FOLDEVTENA, c.fold);
            return;
        case CYCCNT: cyccnt_.write(value, c.cycles); return;
        case CPICNT: cpicnt_.write(value & 0xFF, cpi_source(c)); return;
        case EXCCNT: exccnt_.write(value & 0xFF, c.exception); return;
        case SLEEPCNT: sleepcnt_.write(value & 0xFF, c.sleep); return;
        case LSUCNT: lsucnt_.write(value & 0xFF, lsu_source(c)); return;
        case FOLDCNT: foldcnt_.write(value & 0xFF, c.fold); return;
        default:
            if (offset >= kFirstComparator && offset < kFirstComparator + kComparators * kComparatorStride)
                return write_comparator(offset & ~3u, value);
            host().warn_once(offset, "write to an unimplemented DWT register; ignored");
            return;
    }
}

}  // namespace emutrace::emu::nvic
