#include "emu/machine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

#include "config/little_endian.h"
#include "config/units.h"
#include "emu/detail/machine_impl.h"
#include "emu/nvic/itm.h"
#include "emu/nvic/tpiu.h"
#include "emutrace/config_error.h"

namespace emutrace::emu {
namespace {

constexpr std::uint32_t kNoEnd = 0xFFFFFFFEu;  // uc_emu_start's "until": an address no code reaches

int unicorn_model(models::CoreKind kind) {
    switch (kind) {
        case models::CoreKind::CortexM0: return UC_CPU_ARM_CORTEX_M0;
        case models::CoreKind::CortexM3: return UC_CPU_ARM_CORTEX_M3;
        case models::CoreKind::CortexM4:
        case models::CoreKind::CortexM4F: return UC_CPU_ARM_CORTEX_M4;
    }
    return UC_CPU_ARM_CORTEX_M3;
}

// Every machine has the System Control Space (NVIC, SCB, SysTick, DEMCR) and the DWT at their
// architectural addresses; a core with trace (not the Cortex-M0) the ITM and TPIU too.
MachineConfig with_system_devices(MachineConfig c, const nvic::CycleCounters& counters, const std::optional<nvic::CycleCounters>& at_access) {
    unsigned bits = c.priority_bits ? c.priority_bits : c.core.priority_bits;
    auto scs = std::make_unique<nvic::SystemControl>(c.core, bits, c.irqs, c.clock_hz);
    auto dwt = std::make_unique<nvic::Dwt>(counters, at_access, *scs);
    const nvic::SystemControl& control = *scs;
    c.devices.push_back(DeviceConfig{"scs", "system", nvic::kScsBase, -1, std::move(scs)});
    if (c.core.kind != models::CoreKind::CortexM0) {
        auto tpiu = std::make_unique<nvic::Tpiu>();
        auto itm = std::make_unique<nvic::Itm>(control, *tpiu, c.echo_output ? stdout : nullptr);
        c.devices.push_back(DeviceConfig{"itm", "system", nvic::kItmBase, -1, std::move(itm)});
        c.devices.push_back(DeviceConfig{"tpiu", "system", nvic::kTpiuBase, -1, std::move(tpiu)});
    }
    c.devices.push_back(DeviceConfig{"dwt", "system", nvic::kDwtBase, -1, std::move(dwt)});
    return c;
}

// A device's registers as its SVD names them, for the sinks to name accesses by.
std::vector<trace::DeviceRegister> named_registers(const decode::svd::Peripheral* svd) {
    std::vector<trace::DeviceRegister> out;
    if (!svd) return out;
    for (const auto& r : svd->registers) {
        trace::DeviceRegister d{r.offset, r.bytes, r.name, {}};
        for (const auto& f : r.fields) d.fields.push_back({f.name, f.lsb, f.width});
        out.push_back(std::move(d));
    }
    return out;
}

nvic::SystemControl* find_scs(const MachineConfig& c) {
    for (const auto& d : c.devices)
        if (d.name == "scs" && d.type == "system") return static_cast<nvic::SystemControl*>(d.model.get());
    return nullptr;
}

void check_stimuli(const MachineConfig& c) {
    for (const auto& s : c.stimuli) {
        if (s.kind == Stimulus::Kind::Irq) {
            if (s.irq < 0 || s.irq >= static_cast<int>(c.irqs))
                throw ConfigError("stimulus irq " + std::to_string(s.irq) + " is outside the NVIC's " + std::to_string(c.irqs) + " interrupt lines");
            continue;
        }
        auto dev = std::find_if(c.devices.begin(), c.devices.end(), [&](const DeviceConfig& d) { return d.name == s.device; });
        if (dev == c.devices.end()) throw ConfigError("stimulus names device '" + s.device + "', which the scenario does not declare");
        if (s.kind == Stimulus::Kind::SetRegister && !dev->model->has_register(s.register_name))
            throw ConfigError("stimulus sets register '" + s.register_name + "', which device " + s.device + " does not have");
        if (s.kind == Stimulus::Kind::UartRx && !dev->model->can_receive())
            throw ConfigError("stimulus sends bytes to device " + s.device + ", which cannot receive");
    }
}

// The memory map as the pipeline's feed sees it: each region's timing properties, whether code
// there can change, whether it is a device's.
std::vector<models::FeedRegion> feed_regions(const MemoryPlan& plan) {
    std::vector<models::FeedRegion> out;
    for (const auto& r : plan.memory) {
        models::MemoryPort p;
        p.port = models::MemorySystem::port_of(r.base);
        p.wait_states = static_cast<std::uint8_t>(r.wait_states);
        p.fetch_word_cycles = static_cast<std::uint8_t>(std::max(1u, static_cast<unsigned>(r.fetch_word_cycles)));
        p.fetch_shares_data_port = r.shares_fetch_port;
        p.times_unaligned = r.times_unaligned;
        if (r.cache) {  // the flash behind the cache, with its line buffer, when the cache is off
            p.line_bytes = static_cast<std::uint16_t>(r.cache->flash_line);
            p.line_wait_states = r.cache->miss_cycles;
            p.cached = true;  // and when it is on, its front: its line buffer and tag lookups
            p.cache_line_bytes = static_cast<std::uint16_t>(r.cache->line);
            p.cache_tag_cycles = r.cache->tag_cycles;
        }
        out.push_back({r.base, r.size, p, (r.access & AccessWrite) != 0, r.mmio});
    }
    return out;
}

// The spans of plain memory a data hook covers: neighbouring regions joined where no MMIO window
// lies between them (a gap between them is unmapped: Unicorn faults there, after its hooks have
// seen the access). Unicorn looks through every memory hook on each access, so fewer is faster.
std::vector<std::pair<std::uint64_t, std::uint64_t>> plain_memory_spans(const MemoryPlan& plan) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // [first, last]
    for (const auto& r : plan.memory) {
        if (r.mmio) continue;
        const std::uint64_t first = r.base, last = first + r.size - 1;
        const bool window_between = !spans.empty() && std::any_of(plan.windows.begin(), plan.windows.end(), [&](const MmioWindow& w) {
            return w.base > spans.back().second && w.base < first;
        });
        if (!spans.empty() && !window_between && first > spans.back().second)
            spans.back().second = last;
        else
            spans.emplace_back(first, last);
    }
    return spans;
}

}  // namespace

detail::MachineState::MachineState(MachineConfig cfg, const decode::ElfImage& img)
    : config(with_system_devices(std::move(cfg), feed.counters, feed.access_counters)), image(img), scs(find_scs(config)),
      uc(unicorn_model(config.core.kind)), bus(plan_memory(config, uc.page_size()), config.clock_hz),
      feed(config.timing == TimingMode::Trm ? std::optional(config.core.kind) : std::nullopt),
      blocks(uc, config.core, feed.timing ? &*feed.timing : nullptr, bus.plan, img.symbols(), config.trace_points,
             config.timing == TimingMode::Pipeline),
      semihosting(config.semihosting, config.clock_hz, *this), stimuli(config.stimuli, config.clock_hz, config.seed) {
    check_image_fits(bus.plan, image);
    check_stimuli(config);
    if (config.debugger) debug = std::make_unique<detail::DebugAttachment>(*this, *config.debugger);
    scs->bind(*this);
    map_memory_and_devices();
    load_image();
    resolve_symbols();
    add_hooks();
}

// The board's memories and MMIO windows in Unicorn, and its devices attached and reset, in
// address order.
void detail::MachineState::map_memory_and_devices() {
    for (const auto& r : bus.plan.memory) {
        std::uint32_t perms = ((r.access & AccessRead) ? UC_PROT_READ : 0) | ((r.access & AccessWrite) ? UC_PROT_WRITE : 0) |
                              ((r.access & AccessExecute) ? UC_PROT_EXEC : 0);
        uc.map_memory(r.base, r.size, perms);
    }
    for (const auto& w : bus.plan.windows) {
        bus.windows.push_back(std::make_unique<detail::WindowSlot>(detail::WindowSlot{this, w.base}));
        uc.map_mmio(w.base, w.size, detail::on_mmio_read, detail::on_mmio_write, bus.windows.back().get());
    }
    bus.attach(config.devices, *this);
}

void detail::MachineState::load_image() {
    for (const auto& s : image.segments()) {
        uc.write_memory(s.load_address, s.bytes);
        for (const auto& alias : config.memory) {  // a boot alias starts with a copy of what its region was loaded with
            if (alias.mirrors.empty()) continue;
            auto of = std::find_if(config.memory.begin(), config.memory.end(), [&](const MemoryRegion& r) { return r.name == alias.mirrors; });
            if (of == config.memory.end() || s.load_address < of->base || s.load_address - of->base >= alias.size) continue;
            std::uint32_t offset = s.load_address - of->base;
            std::size_t n = std::min<std::size_t>(s.bytes.size(), alias.size - offset);
            uc.write_memory(alias.base + offset, std::span<const std::uint8_t>(s.bytes).first(n));
        }
    }
}

// The symbols the configuration names: where to stop, the RTOS's current thread.
void detail::MachineState::resolve_symbols() {
    if (!config.stop.at_symbol.empty()) {
        stop_address = image.symbols().address_of(config.stop.at_symbol);
        if (!stop_address) throw ConfigError("stop symbol '" + config.stop.at_symbol + "' is not in the symbol table of " + image.path());
    } else if (config.stop.at_address) {
        stop_address = *config.stop.at_address & ~1u;
    }
    if (!config.rtos.current_thread.empty()) {
        thread_variable = image.symbols().address_of(config.rtos.current_thread);
        if (!thread_variable)
            throw ConfigError("rtos.current_thread '" + config.rtos.current_thread + "' is not in the symbol table of " + image.path());
    }
}

// The machine's own hooks: timed memories and caches, the user event function, watch points, the
// block hook, the pipeline's, interrupts, invalid accesses and the stop address. Unicorn calls the
// hooks of one kind in the order they were added, so these come before a debugger's.
void detail::MachineState::add_hooks() {
    const MemoryPlan& plan = bus.plan;
    if (feed.timing) {
        for (const auto& r : plan.memory) {
            if (!r.wait_states && !r.times_unaligned) continue;
            auto& timed =
                feed.timed_regions.emplace_back(std::make_unique<detail::TimedRegion>(detail::TimedRegion{&feed, r.wait_states, r.times_unaligned}));
            uc.add_hook(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(detail::on_timed_access), timed.get(), r.base,
                        static_cast<std::uint64_t>(r.base) + r.size - 1);
        }
    }
    if (config.timing != TimingMode::None)
        for (const auto& r : plan.memory) {
            if (!r.cache) continue;
            models::FlashCacheParameters cache = *r.cache;
            if (config.timing == TimingMode::Pipeline) cache.tag_cycles = cache.miss_cycles = 0;  // the pipeline's bus times both
            feed.flash_caches.emplace_back(r.base, r.size, cache);
        }
    for (auto& c : feed.flash_caches) c.enable(feed.memory_mode.cache_enabled);  // as a device's reset left it
    feed.has_flash_caches = !feed.flash_caches.empty();
    if (!config.user_event_function.empty()) {
        auto at = image.symbols().address_of(config.user_event_function);
        if (!at) throw ConfigError("user event function '" + config.user_event_function + "' is not in the symbol table of " + image.path());
        uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(detail::on_user_event_function), this, *at, *at);
    }
    // One code hook per watch point, each on its one address: Unicorn calls it only for the
    // instruction there, so the rest of the code runs unhooked.
    for (std::uint32_t at : config.watch_points) uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(detail::on_watch_point), this, at, at);
    bool per_block = config.pipeline_facts == MachineConfig::PipelineFacts::Block;
    bool pipelined_blocks = config.timing == TimingMode::Pipeline && per_block;
    auto* block_hook = !pipelined_blocks       ? detail::on_block
                       : feed.has_flash_caches ? detail::on_pipelined_block_through_flash_caches
                                               : detail::on_pipelined_block;
    uc.add_hook(UC_HOOK_BLOCK, reinterpret_cast<void*>(block_hook), this);
    if (config.timing == TimingMode::Pipeline) {
        feed.pipeline_feed.emplace(uc, feed_regions(plan), config.core, config.timing_cache, per_block);
        feed.pipeline_feed->pipeline().change().set_memory_mode(feed.memory_mode);
        if (!per_block) uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(detail::on_pipeline_instruction), this, 1, 0);
        auto* data_hook = feed.has_flash_caches ? detail::on_pipeline_data_access_through_flash_caches : detail::on_pipeline_data_access;
        if (feed.pipeline_feed->hooks_memory())
            for (const auto& [first, last] : plain_memory_spans(plan))
                uc.add_hook(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(data_hook), this, first, last);
    }
    uc.add_hook(UC_HOOK_INTR, reinterpret_cast<void*>(detail::on_interrupt), this);
    uc.add_hook(UC_HOOK_MEM_INVALID, reinterpret_cast<void*>(detail::on_invalid_memory), this);
    if (stop_address) uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(detail::on_stop_address), this, *stop_address, *stop_address);
}

bool detail::MachineState::write_guest(std::uint32_t address, std::span<const std::uint8_t> bytes) {
    if (static_cast<std::uint64_t>(address) + bytes.size() > 0x1'0000'0000ull) return false;
    const MemoryRegion* r = region_at(bus.plan, address);
    if (!r || !(r->access & AccessWrite) || address + bytes.size() > static_cast<std::uint64_t>(r->base) + r->size) return false;
    return uc_mem_write(uc.get(), address, bytes.data(), bytes.size()) == UC_ERR_OK;
}

void detail::MachineState::output(trace::OutputChannel channel, std::string_view text) {
    if (config.echo_output) {
        std::FILE* f = channel == trace::OutputChannel::Stderr ? stderr : stdout;
        std::fwrite(text.data(), 1, text.size(), f);
    }
    stream.push_output(cycles(), static_cast<std::uint16_t>(channel), text);
}

RunResult detail::MachineState::finish() {
    stream.flush_deferred_block(cycles());
    semihosting.report_unshown_warnings();
    check_thread();
    RunResult r;
    r.reason = reason.value_or(StopReason::Fault);
    r.exit_code = exit_code;
    r.instructions = feed.counters.instructions;
    r.cycles = cycles();
    r.emulated_seconds = emulated_seconds();
    r.core_clock_hz = bus.clocks.core_hz();
    r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    r.pc = fault ? fault->pc : uc.reg(UC_ARM_REG_PC);
    r.fault = fault;
    r.message = message;
    r.exceptions = exceptions_taken;
    r.thread_switches = thread_switches;
    r.unclaimed_mmio_accesses = bus.unclaimed_accesses();
    r.sleep_cycles = feed.counters.sleep;
    r.stall_cycles = feed.counters.stall;
    r.exception_cycles = feed.counters.exception;
    for (const auto& c : feed.flash_caches) {
        const models::FlashCacheCounters& n = c.counters();
        r.flash_cache.lookups += n.lookups, r.flash_cache.misses += n.misses;
        r.flash_cache.stall_cycles += n.stall_cycles;
    }
    if (feed.pipeline_feed) {
        const auto c = feed.pipeline_feed->pipeline().stats();
        r.timing_cache = {c.lookups, c.hits, c.states, c.clears, c.followed};
    }

    trace::Event e{};
    e.cycle = r.cycles;
    e.kind = trace::EventKind::Stop;
    e.address = r.pc;
    e.value = static_cast<std::uint32_t>(r.reason);
    e.extra = fault ? fault->address : 0;
    stream.end(e);
    return r;
}

Machine::Machine(MachineConfig config, const decode::ElfImage& image) : impl_(std::make_unique<detail::MachineState>(std::move(config), image)) {}

Machine::~Machine() = default;

const MachineConfig& Machine::config() const {
    return impl_->config;
}

std::vector<std::uint8_t> Machine::read_memory(std::uint32_t address, std::uint32_t size) const {
    std::vector<std::uint8_t> bytes(size);
    if (!impl_->uc.read_memory(address, bytes)) return {};
    return bytes;
}

void Machine::add_sink(trace::TraceSink& sink) {
    impl_->stream.recorder.add_sink(sink);
}

void Machine::set_steering(trace::Steering& steering) {
    if (impl_->steering) throw ConfigError("two analyses steer this run; at most one can (a replay)");
    impl_->steering = &steering;
}

void Machine::set_progress(std::function<void(std::uint64_t, std::uint64_t)> observer) {
    impl_->progress = std::move(observer);
}

SourceTotals Machine::deliver() {
    const RunResult& r = last_ = run();
    return {"emulator",         r.instructions,
            r.cycles,           impl_->config.clock_hz,
            r.emulated_seconds, r.reason == StopReason::Exited || r.reason == StopReason::SymbolReached || r.reason == StopReason::Steered,
            r.sleep_cycles};
}

const RunResult& Machine::result() const {
    return last_;
}

RunResult Machine::run() {
    detail::MachineState& m = *impl_;
    if (m.stream.recorder.wants(trace::WantMemory) && !m.want_memory) {
        // The exact pc of each access needs a hook on every instruction (Unicorn 2.0.1's pc in a
        // memory hook is the block's, P7); only code that asks pays for it.
        m.want_memory = true;
        m.uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(detail::on_instruction), &m);
        for (const auto& r : m.bus.plan.memory)
            if (!r.mmio && (r.access & AccessWrite))
                m.uc.add_hook(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(detail::on_ram_access), &m, r.base,
                              static_cast<std::uint64_t>(r.base) + r.size - 1);
    }
    if (m.steering && m.steering->replaces_stimuli()) {
        static const std::vector<Stimulus> kNone;
        m.stimuli = StimulusSchedule(kNone, m.config.clock_hz, m.config.seed);
    }
    m.stimuli.open_live_sources();  // a replay's outside world is its log: it opens none
    trace::RunInfo info{"emulator", m.image.path(), std::string(m.config.core.name), m.config.clock_hz, {}, {}, {}, {}, {}};
    for (const auto& d : m.bus.devices) {
        info.devices.push_back(d->name);
        info.device_irqs.push_back(d->irq);
        info.device_registers.push_back(named_registers(d->model->description()));
    }
    info.timing = std::string(to_string(m.config.timing));
    m.stream.start(info);

    m.started = std::chrono::steady_clock::now();
    m.next_check = 0;
    std::uint32_t pc = 0;
    bool running = m.reset(pc);
    if (running && m.debug) {  // the debugger's first look, before the reset handler runs
        m.uc.set_reg(UC_ARM_REG_PC, pc | 1);
        running = m.debug->stopped(emu::DebugEvent{emu::DebugEvent::Why::Attached, pc, 0, WatchKind::Write, 0, {}});
        pc = m.uc.reg(UC_ARM_REG_PC);
    }
    while (running && !m.reason) {
        uc_err err = m.uc.start(pc | 1, kNoEnd);
        m.settle_pipeline(m.uc.reg(UC_ARM_REG_PC), false);
        if (m.reason) break;
        pc = m.uc.reg(UC_ARM_REG_PC);
        if (m.debug && m.debug->halt_pending()) {  // a breakpoint, a step, a watchpoint, Ctrl-C
            running = m.debug->stopped();
            pc = m.uc.reg(UC_ARM_REG_PC);
            continue;
        }
        // WFI ends uc_emu_start with OK, WFE with "invalid instruction", both with pc after it.
        if ((err == UC_ERR_OK || err == UC_ERR_INSN_INVALID) && pc == m.sleep_resume) {
            m.sleep_resume = 1;
            running = m.sleep(pc);
        } else if (err != UC_ERR_OK && m.config.faults == FaultPolicy::Handler && m.deliver_fault(err)) {
            running = true;
        } else if (err != UC_ERR_OK) {
            m.fault_from_error(err);
        } else {
            m.stop_fault(FaultKind::Internal, pc, pc, false, "emulation ended with no stop condition");
        }
        pc = m.uc.reg(UC_ARM_REG_PC);
    }
    std::fflush(stdout);
    if (m.debug && m.debug->attached()) {  // a last look at how the run ended
        using Why = emu::DebugEvent::Why;
        const Why why = m.reason == StopReason::Fault ? Why::Fault : m.reason == StopReason::Steered ? Why::Diverged : Why::Ended;
        m.debug->stopped(
            emu::DebugEvent{why, m.uc.reg(UC_ARM_REG_PC), 0, WatchKind::Write, m.reason == StopReason::Exited ? m.exit_code : -1, m.message});
    }
    return m.finish();
}

}  // namespace emutrace::emu
