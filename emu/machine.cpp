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
            p.cached = true;
        }
        out.push_back({r.base, r.size, p, (r.access & AccessWrite) != 0, r.mmio});
    }
    return out;
}

}  // namespace

detail::MachineState::MachineState(MachineConfig cfg, const decode::ElfImage& img)
    : config(with_system_devices(std::move(cfg), counters, access_counters)), image(img), scs(find_scs(config)), uc(unicorn_model(config.core.kind)),
      plan(plan_memory(config, uc.page_size())),
      timing(config.timing == TimingMode::Trm ? std::optional<models::TimingModel>(config.core.kind) : std::nullopt),
      blocks(uc, config.core, timing ? &*timing : nullptr, plan, img.symbols(), config.trace_points, config.timing == TimingMode::Pipeline),
      semihosting(config.semihosting, config.clock_hz, *this), stimuli(config.stimuli, config.clock_hz, config.seed) {
    check_image_fits(plan, image);
    check_stimuli(config);
    core_hz = config.clock_hz;
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
    for (const auto& r : plan.memory) {
        std::uint32_t perms = ((r.access & AccessRead) ? UC_PROT_READ : 0) | ((r.access & AccessWrite) ? UC_PROT_WRITE : 0) |
                              ((r.access & AccessExecute) ? UC_PROT_EXEC : 0);
        uc.map_memory(r.base, r.size, perms);
    }
    for (const auto& w : plan.windows) {
        windows.push_back(std::make_unique<detail::WindowSlot>(detail::WindowSlot{this, w.base}));
        uc.map_mmio(w.base, w.size, detail::on_mmio_read, detail::on_mmio_write, windows.back().get());
    }
    for (auto& d : config.devices) {
        auto slot = std::make_unique<detail::DeviceSlot>();
        slot->machine = this;
        slot->name = d.name;
        slot->base = d.base;
        slot->size = d.model->size();
        slot->irq = d.irq;
        slot->more_irqs = d.more_irqs;
        slot->model = d.model.get();
        d.model->attach(*slot);
        d.model->reset();
        devices.push_back(std::move(slot));
    }
    std::sort(devices.begin(), devices.end(), [](auto& a, auto& b) { return a->base < b->base; });
    for (std::size_t i = 0; i < devices.size(); ++i) devices[i]->index = static_cast<std::uint16_t>(i);
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
    if (timing) {
        for (const auto& r : plan.memory) {
            if (!r.wait_states && !r.times_unaligned) continue;
            timed_regions.push_back(std::make_unique<detail::TimedRegion>(detail::TimedRegion{this, r.wait_states, r.times_unaligned}));
            uc.add_hook(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(detail::on_timed_access), timed_regions.back().get(), r.base,
                        static_cast<std::uint64_t>(r.base) + r.size - 1);
        }
    }
    if (config.timing != TimingMode::None)
        for (const auto& r : plan.memory)
            if (r.cache) flash_caches.emplace_back(r.base, r.size, *r.cache);
    for (auto& c : flash_caches) c.enable(memory_mode.cache_enabled);  // as a device's reset left it
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
    uc.add_hook(UC_HOOK_BLOCK, reinterpret_cast<void*>(pipelined_blocks ? detail::on_pipelined_block : detail::on_block), this);
    if (config.timing == TimingMode::Pipeline) {
        pipeline_feed.emplace(uc, feed_regions(plan), config.core, config.timing_cache, per_block);
        pipeline_feed->pipeline().change().set_memory_mode(memory_mode);
        if (!per_block) uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(detail::on_pipeline_instruction), this, 1, 0);
        if (pipeline_feed->hooks_memory())
            for (const auto& r : plan.memory)
                if (!r.mmio)
                    uc.add_hook(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(detail::on_pipeline_data_access), this, r.base,
                                static_cast<std::uint64_t>(r.base) + r.size - 1);
    }
    uc.add_hook(UC_HOOK_INTR, reinterpret_cast<void*>(detail::on_interrupt), this);
    uc.add_hook(UC_HOOK_MEM_INVALID, reinterpret_cast<void*>(detail::on_invalid_memory), this);
    if (stop_address) uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(detail::on_stop_address), this, *stop_address, *stop_address);
}

bool detail::MachineState::write_guest(std::uint32_t address, std::span<const std::uint8_t> bytes) {
    if (static_cast<std::uint64_t>(address) + bytes.size() > 0x1'0000'0000ull) return false;
    const MemoryRegion* r = region_at(plan, address);
    if (!r || !(r->access & AccessWrite) || address + bytes.size() > static_cast<std::uint64_t>(r->base) + r->size) return false;
    return uc_mem_write(uc.get(), address, bytes.data(), bytes.size()) == UC_ERR_OK;
}

void detail::MachineState::output(trace::OutputChannel channel, std::string_view text) {
    if (config.echo_output) {
        std::FILE* f = channel == trace::OutputChannel::Stderr ? stderr : stdout;
        std::fwrite(text.data(), 1, text.size(), f);
    }
    if (want_output) recorder.push_output(cycles(), static_cast<std::uint16_t>(channel), text);
}

std::string detail::MachineState::where(std::uint32_t pc) const {
    return config::hex32(pc) + " (" + image.symbols().describe(pc) + ")";
}

std::string detail::MachineState::quoted_instruction(std::uint32_t pc) const {
    std::array<std::uint8_t, 4> code{};
    std::size_t n = uc.read_memory(pc, code) ? 4 : uc.read_memory(pc, std::span(code.data(), 2)) ? 2 : 0;
    if (n == 0) return "(unreadable code)";
    std::string text = "'";
    text += blocks.decoder().decode_one(std::span(code.data(), n), pc).text;
    text += '\'';
    return text;
}

void detail::MachineState::stop(StopReason why, std::string text) {
    if (reason) return;
    reason = why;
    message = std::move(text);
    uc.stop();
    next_check = 0;  // Unicorn drops the stop if this hook also wrote pc; service() repeats it
}

void detail::MachineState::stop_fault(FaultKind kind, std::uint32_t address, std::uint32_t pc, bool pc_is_block_start, std::string detail) {
    if (reason) return;
    Fault f{kind, address, pc, pc_is_block_start, image.symbols().describe(pc), std::move(detail)};
    std::string text(describe(kind));
    if (has_access_address(kind)) text += " at " + config::hex32(address);
    text += pc_is_block_start ? ", in the block starting at " : ", pc ";
    text += where(pc);
    if (!f.detail.empty()) text += ": " + f.detail;
    fault = std::move(f);
    stop(StopReason::Fault, std::move(text));
}

bool detail::MachineState::reset(std::uint32_t& pc) {
    std::uint32_t vtor = config.vector_table.value_or(image.lowest_load_address());
    std::array<std::uint8_t, 8> v{};
    if (!uc.read_memory(vtor, v)) {
        stop_fault(FaultKind::BadVectorTable, vtor, vtor, false, "the vector table is not in mapped memory");
        return false;
    }
    std::uint32_t sp = config::read_le32(v.data());
    pc = v[4] | v[5] << 8 | v[6] << 16 | static_cast<std::uint32_t>(v[7]) << 24;
    if (config.entry) pc = *config.entry | 1u;
    const MemoryRegion* code = region_at(plan, pc & ~1u);
    if (!(pc & 1) || !code || !(code->access & AccessExecute)) {
        stop_fault(FaultKind::BadVectorTable, vtor + 4, pc & ~1u, false,
                   "reset vector " + config::hex32(pc) + (!(pc & 1) ? " lacks the Thumb bit" : " is not in executable memory"));
        return false;
    }
    const MemoryRegion* stack = region_at(plan, sp - 4);
    if ((sp & 3) || !stack || !(stack->access & AccessWrite)) {
        stop_fault(FaultKind::BadVectorTable, vtor, pc & ~1u, false, "initial stack pointer " + config::hex32(sp) + " is not in writable memory");
        return false;
    }
    uc.set_reg(UC_ARM_REG_SP, sp);
    scs->set_vtor(vtor);  // where this image's vector table is, also when it is not at 0
    scs->set_trace_enabled(config.trace_enabled);
    return true;
}

std::optional<std::uint32_t> detail::MachineState::faulting_instruction(std::uint32_t block_start, std::uint32_t address) const {
    std::array<std::uint8_t, 128> code{};
    std::size_t n = code.size();
    while (n >= 2 && !uc.read_memory(block_start, std::span(code.data(), n))) n /= 2;
    if (n < 2) return std::nullopt;
    for (const auto& insn : blocks.decoder().decode(std::span(code.data(), n), block_start)) {
        if (insn.memory.mode != decode::MemoryAccess::Mode::None && access_covers(insn.memory, insn.address, address)) return insn.address;
        if (insn.is_jump) break;  // the translated block ends here
    }
    return std::nullopt;
}

void detail::MachineState::fault_from_error(uc_err err) {
    std::uint32_t pc = uc.reg(UC_ARM_REG_PC);
    auto mf = memory_fault;
    auto data_fault = [&](FaultKind kind) {
        std::uint32_t address = mf ? mf->address : 0;
        if (auto at = faulting_instruction(pc, address))
            stop_fault(kind, address, *at, false, quoted_instruction(*at));
        else
            stop_fault(kind, address, pc, true, "");
    };
    switch (err) {
        case UC_ERR_READ_UNMAPPED: data_fault(FaultKind::UnmappedRead); break;
        case UC_ERR_WRITE_UNMAPPED: data_fault(FaultKind::UnmappedWrite); break;
        case UC_ERR_FETCH_UNMAPPED: stop_fault(FaultKind::UnmappedFetch, mf ? mf->address : pc, pc, false, ""); break;
        case UC_ERR_WRITE_PROT: data_fault(FaultKind::WriteToReadOnly); break;
        case UC_ERR_READ_PROT: data_fault(FaultKind::ReadProtected); break;
        case UC_ERR_FETCH_PROT: stop_fault(FaultKind::FetchNotExecutable, mf ? mf->address : pc, pc, false, ""); break;
        case UC_ERR_INSN_INVALID: stop_fault(FaultKind::UndefinedInstruction, pc, pc, false, quoted_instruction(pc)); break;
        case UC_ERR_EXCEPTION: stop_fault(FaultKind::UnhandledException, pc, pc, false, "CPU exception"); break;
        default: stop_fault(FaultKind::Internal, pc, pc, false, std::string("Unicorn: ") + uc_strerror(err)); break;
    }
}

void detail::MachineState::defer_block_event(std::uint64_t start, std::uint32_t pc, std::uint32_t size, const BlockInfo& b) {
    if (!(b.flags & BlockInfo::Split)) return defer_whole_block_event(start, pc, size, b);
    flush_deferred_block(start);
    // The block's events go in now, in cycle order with what the block does, and get their
    // cycles when the next block starts; room is made so that the batch stays until then.
    recorder.make_room(kRoomForTheBlock);
    DeferredBlock& d = deferred_block;
    d = {true, start, pc, size, b.instructions, 0, recorder.next_index(), recorder.batch_number()};
    for (const BlockPiece* piece = blocks.pieces(b);; ++piece) {
        recorder.push_block(start, piece->address, piece->size, piece->instructions, 0, piece->end);
        ++d.events;
        if (piece->address + piece->size >= pc + size) return;
    }
}

void detail::MachineState::flush_deferred_block(std::uint64_t now) {
    DeferredBlock& d = deferred_block;
    if (!d.active) return;
    d.active = false;
    trace::Event* events = recorder.unsent(d.first_event, d.batch);
    if (!events) return;  // a block with more events than the room made: its cost went out as 0
    std::uint64_t cycles = now > d.start ? now - d.start : 0, at = d.start, spent = 0;
    // Parts at trace points share the block's cycles by their instructions; the last takes the rest.
    for (std::uint32_t i = 0; i < d.events; ++i) {
        trace::Event& e = events[i];
        std::uint64_t part = i + 1 == d.events ? cycles - spent : cycles * e.extra / std::max<std::uint32_t>(d.instructions, 1);
        e.cycle = at;
        e.channel = static_cast<std::uint16_t>(std::min<std::uint64_t>(part, 0xFFFF));
        at += part;
        spent += part;
    }
}

RunResult detail::MachineState::finish() {
    flush_deferred_block(cycles());
    semihosting.report_unshown_warnings();
    check_thread();
    RunResult r;
    r.reason = reason.value_or(StopReason::Fault);
    r.exit_code = exit_code;
    r.instructions = counters.instructions;
    r.cycles = cycles();
    r.emulated_seconds = emulated_seconds();
    r.core_clock_hz = core_hz;
    r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    r.pc = fault ? fault->pc : uc.reg(UC_ARM_REG_PC);
    r.fault = fault;
    r.message = message;
    r.exceptions = exceptions_taken;
    r.thread_switches = thread_switches;
    r.unclaimed_mmio_accesses = unclaimed_accesses;
    r.sleep_cycles = counters.sleep;
    r.stall_cycles = counters.stall;
    r.exception_cycles = counters.exception;
    for (const auto& c : flash_caches) {
        const models::FlashCacheCounters& n = c.counters();
        r.flash_cache.lookups += n.lookups, r.flash_cache.misses += n.misses, r.flash_cache.line_buffer_hits += n.line_buffer_hits;
        r.flash_cache.stall_cycles += n.stall_cycles;
    }
    if (pipeline_feed) {
        const auto c = pipeline_feed->pipeline().stats();
        r.timing_cache = {c.lookups, c.hits, c.states, c.clears, c.followed};
    }

    trace::Event e{};
    e.cycle = r.cycles;
    e.kind = trace::EventKind::Stop;
    e.address = r.pc;
    e.value = static_cast<std::uint32_t>(r.reason);
    e.extra = fault ? fault->address : 0;
    recorder.push(e);
    recorder.end();
    return r;
}

void detail::MachineState::hook_operand_sites(std::uint32_t address, std::uint32_t size) {
    for (const auto& code : blocks.operand_sites(address)) {
        if (!hooked_sites.insert(code.address).second) continue;  // also in a block translated before
        // Rn in the first halfword's low bits, Rm in the second's (ARMv7-M ARM A7.7).
        detail::OperandSite site;
        site.machine = this;
        site.rn = static_cast<std::uint8_t>(code.first & 0xF);
        site.rm = static_cast<std::uint8_t>(code.second & 0xF);
        if (code.first) site.timing = models::TimingModel::operand_timing(code.first);
        site.executed_extra = code.executed_extra;
        site.executed_extra_lsu = code.executed_extra_lsu;
        operand_sites.push_back(std::make_unique<detail::OperandSite>(site));
        uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(detail::on_operand_site), operand_sites.back().get(), code.address, code.address);
    }
    blocks.operand_sites_hooked(address, size);
    // This block was translated before the hooks existed: translate it again and start it over.
    uc.remove_cache(address, address + size);
    uc.set_reg(UC_ARM_REG_PC, address | 1);
}

nvic::CycleCounters detail::MachineState::counters_at_access(std::uint32_t address) {
    if (pipeline_feed) {
        models::PipelineCounters p = pipeline_feed->pipeline().at_data_phase();
        nvic::CycleCounters at = counters;
        std::uint64_t exceptional = counters.cycles - pipeline_feed->pipeline().counters().cycles;
        at.cycles = p.cycles + exceptional;
        at.instructions = p.instructions;
        at.lsu = p.lsu;
        at.fold = p.fold;
        return at;
    }
    auto list = blocks.accesses(block_pc);
    std::size_t i = next_access_covering(list, access_cursor, address);
    if (i == list.size()) return counters;
    const auto& a = list[i];
    // The load before may be the previous block's last instruction (a block Unicorn ended at
    // a page boundary), so it is found by instruction count rather than in this block's list.
    std::uint64_t instruction = counters.instructions - a.remaining.instructions;
    access_cursor = static_cast<std::uint32_t>(i + 1);
    nvic::CycleCounters at = counters;
    at.cycles -= a.remaining.cycles;
    at.instructions = instruction;
    at.lsu -= a.remaining.lsu;
    at.fold -= a.remaining.fold;
    return at;
}

std::size_t detail::MachineState::next_access_covering(std::span<const BlockAccess> list, std::size_t from, std::uint32_t address) const {
    for (std::size_t i = from; i < list.size(); ++i)
        if (access_covers(list[i].access, list[i].address, address)) return i;
    return list.size();
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
    impl_->recorder.add_sink(sink);
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
    m.want_blocks = m.recorder.wants(trace::WantBlocks);
    m.want_mmio = m.recorder.wants(trace::WantMmio);
    m.want_output = m.recorder.wants(trace::WantOutput);
    m.want_exceptions = m.recorder.wants(trace::WantExceptions);
    m.want_markers = m.recorder.wants(trace::WantMarkers);
    m.want_branches = m.recorder.wants(trace::WantBranches);
    m.want_watches = m.recorder.wants(trace::WantWatches);
    m.want_samples = m.recorder.wants(trace::WantSamples);
    if (m.recorder.wants(trace::WantMemory) && !m.want_memory) {
        // The exact pc of each access needs a hook on every instruction (Unicorn 2.0.1's pc in a
        // memory hook is the block's, P7); only code that asks pays for it.
        m.want_memory = true;
        m.uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(detail::on_instruction), &m);
        for (const auto& r : m.plan.memory)
            if (!r.mmio && (r.access & AccessWrite))
                m.uc.add_hook(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(detail::on_ram_access), &m, r.base,
                              static_cast<std::uint64_t>(r.base) + r.size - 1);
    }
    if (m.steering && m.steering->replaces_stimuli()) {
        static const std::vector<Stimulus> kNone;
        m.stimuli = StimulusSchedule(kNone, m.config.clock_hz, m.config.seed);
    }
    m.stimuli.open_live_sources();  // a replay's outside world is its log: it opens none
    m.branch_mask = m.want_branches ? 0xFF : 0;
    m.pending_branch = static_cast<std::uint8_t>(trace::BranchKind::Resume) & m.branch_mask;  // the reset handler's first block
    trace::RunInfo info{"emulator", m.image.path(), std::string(m.config.core.name), m.config.clock_hz, {}, {}, {}, {}, {}};
    for (const auto& d : m.devices) {
        info.devices.push_back(d->name);
        info.device_irqs.push_back(d->irq);
        info.device_registers.push_back(named_registers(d->model->description()));
    }
    info.timing = std::string(to_string(m.config.timing));
    m.recorder.start(info);

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
