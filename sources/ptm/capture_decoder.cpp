#include "sources/ptm/capture_decoder.h"

#include <opencsd/c_api/opencsd_c_api.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "config/input_member.h"
#include "config/text_file.h"
#include "config/units.h"
#include "decode/instruction_decoder.h"
#include "emutrace/config_error.h"
#include "sources/etm/exception_numbers.h"
#include "trace/event_recorder.h"

namespace emutrace::decode {
namespace {

namespace fs = std::filesystem;
using Ini = std::map<std::string, std::map<std::string, std::string>>;

// A snapshot's .ini file, named by snapshot.ini (or it) and so inside the snapshot's folder:
// [section] and key=value, ';' comments; register keys carry an "(id:0x..)" or "(size:64)"
// suffix, which is dropped. A few KB in any snapshot; one past 16 MiB is refused unread.
Ini read_ini(const fs::path& root, const std::string& name, const std::string& named_in) {
    const fs::path path = config::input_member(root, name, named_in, "snapshot file");
    constexpr std::uintmax_t kMaxIni = 16u << 20;
    if (fs::file_size(path) > kMaxIni) throw ConfigError(path.string() + ": larger than 16 MiB: not a snapshot .ini");
    std::ifstream in(path);
    if (!in) throw ConfigError(path.string() + ": cannot open the snapshot file");
    Ini ini;
    std::string line, section;
    auto trim = [](std::string s) {
        auto a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
        return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
    };
    while (std::getline(in, line)) {
        line = trim(line);
        if (line.empty() || line[0] == ';' || line[0] == '#') continue;
        if (line.front() == '[' && line.back() == ']') {
            section = line.substr(1, line.size() - 2);
            continue;
        }
        auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        std::string key = trim(line.substr(0, eq));
        if (auto paren = key.find('('); paren != std::string::npos) key = key.substr(0, paren);
        ini[section][key] = trim(line.substr(eq + 1));
    }
    return ini;
}

std::uint32_t reg(const Ini& dev, const std::string& name, const fs::path& file) {
    auto s = dev.find("regs");
    if (s != dev.end())
        if (auto it = s->second.find(name); it != s->second.end())
            if (auto v = config::parse_integer(it->second)) return static_cast<std::uint32_t>(*v);
    throw ConfigError(file.string() + ": register " + name + " is missing or not a number");
}

// One trace source's decoding: its own clock, and how its next range is reached.
struct SourceState {
    std::uint32_t index = 0;  ///< in RunInfo::cores and CaptureSummary::cores
    std::uint8_t trace_id = 0;
    std::uint64_t clock = 0;  ///< cycles when cycle-accurate, else instructions so far
    bool cycle_accurate = false;
    bool decoded = false;                ///< a range was decoded: later trace-on and lost sync are gaps in it
    std::int64_t lost_from = -1;         ///< byte index where sync was lost, until the next sync
    trace::BranchKind next_branch{};     ///< how the next range is reached (a call, a return, a vector), or 0
    bool next_indirect = false;          ///< through a register or a load (Event::width of a Branch)
    std::uint32_t branch_from = 0;       ///< the end of the range that branched: a call's return address
    bool etm_exception_numbers = false;  ///< an ETMv3's: numbered by its Exception[8:0] encoding
    /// After the last range: where execution went on if its last instruction did not branch (an
    /// ETMv3's exception element carries no return address: this is it).
    std::uint32_t after_range = 0;
    bool range_branched = false;  ///< by a taken direct branch (an indirect one's target came in a packet)
    unsigned branched_size = 0;
    std::vector<std::uint32_t> returns;  ///< the return addresses of the exceptions entered, innermost last
};

// What OpenCSD's element callback writes into: the totals and the event stream, with a Source
// event whenever the elements move to another source of a multi-source capture.
struct Context {
    CaptureSummary* summary;
    trace::EventRecorder* recorder;
    /// The traced code, for an ETMv3's exception taken right after a direct branch: its return
    /// address is the branch's target, which the trace leaves to the code.
    std::vector<std::pair<std::uint64_t, std::vector<std::uint8_t>>> code = {};
    std::optional<InstructionDecoder> decoder = {};  ///< made on the first such exception
    /// The target of the direct branch whose last byte ends at `end` (`size` bytes long), or `end`.
    std::uint32_t branch_target(std::uint32_t end, unsigned size) {
        for (const auto& [base, bytes] : code)
            if (end - size >= base && end - base <= bytes.size()) {
                if (!decoder) decoder.emplace(InstructionSet::ThumbM);
                const Instruction insn = decoder->decode_one(std::span(bytes).subspan(end - size - base, size), end - size);
                return insn.target ? insn.target : end;
            }
        return end;
    }
    std::array<SourceState*, 256> by_channel{};  ///< by the channel OpenCSD reports (the trace ID)
    bool announce = false;                       ///< several sources: Source events mark the changes
    const SourceState* announced = nullptr;

    /// Bytes of this buffer already counted as lost: several sources that lose sync over the
    /// same stretch of a shared buffer lose its bytes once.
    std::uint64_t lost_until = 0;

    void resynchronised(SourceState& s, std::uint32_t at) {
        if (s.lost_from < 0) return;
        std::uint64_t from = std::max<std::uint64_t>(static_cast<std::uint64_t>(s.lost_from), lost_until);
        if (at > from) summary->lost_bytes += at - from;
        lost_until = std::max<std::uint64_t>(lost_until, at);
        s.lost_from = -1;
    }

    void push(SourceState& s, trace::EventKind kind, std::uint32_t address, std::uint32_t value, std::uint32_t extra, std::uint8_t id,
              std::uint8_t width = 0) {
        if (announce && announced != &s) {
            recorder->push({s.clock, s.trace_id, s.index, 0, trace::EventKind::CoreSwitch, 0, 0});
            announced = &s;
        }
        recorder->push({s.clock, address, value, extra, kind, width, id});
    }
};

trace::BlockEnd block_end(ocsd_instr_type type) {
    switch (type) {
        case OCSD_INSTR_BR: return trace::BlockEnd::Direct;
        case OCSD_INSTR_BR_INDIRECT: return trace::BlockEnd::Indirect;
        case OCSD_INSTR_ISB: return trace::BlockEnd::Barrier;
        default: return trace::BlockEnd::Fallthrough;
    }
}

// An instruction range: the Branch that reached it (as the emulator reports it: before the
// block), its Block event, and how it left, for the next range's Branch.
void on_range(Context& c, SourceState& src, CoreTotals& totals, const ocsd_generic_trace_elem* e, std::uint32_t at, std::uint8_t id) {
    auto& s = *c.summary;
    ++s.ranges;
    src.decoded = true;
    c.resynchronised(src, at);
    s.instructions += e->num_instr_range;
    totals.instructions += e->num_instr_range;
    ++totals.ranges;
    if (s.first_ranges.size() < 16) s.first_ranges.push_back({e->st_addr, e->en_addr, e->num_instr_range, id});
    if (src.next_branch != trace::BranchKind{})  // as the emulator does: the Branch precedes the block it reaches
        c.push(src, trace::EventKind::Branch, static_cast<std::uint32_t>(e->st_addr), static_cast<std::uint32_t>(src.next_branch), src.branch_from, 0,
               src.next_indirect ? 1 : 0);
    c.push(src, trace::EventKind::Block, static_cast<std::uint32_t>(e->st_addr), static_cast<std::uint32_t>(e->en_addr - e->st_addr),
           e->num_instr_range, 0, static_cast<std::uint8_t>(block_end(e->last_i_type)));  // a capture gives no per-block cost
    // An executed jump, conditional or not, may be a tail call; the call tracer checks for a
    // function start (and, for an indirect one, for a caller's return address).
    src.next_branch = !e->last_instr_exec || e->last_i_type == OCSD_INSTR_OTHER                     ? trace::BranchKind{}
                      : e->last_i_subtype == OCSD_S_INSTR_BR_LINK                                   ? trace::BranchKind::Call
                      : e->last_i_subtype == OCSD_S_INSTR_V7_IMPLIED_RET                            ? trace::BranchKind::Return
                      : e->last_i_type == OCSD_INSTR_BR || e->last_i_type == OCSD_INSTR_BR_INDIRECT ? trace::BranchKind::Jump
                                                                                                    : trace::BranchKind{};
    src.next_indirect = e->last_i_type == OCSD_INSTR_BR_INDIRECT;
    src.branch_from = static_cast<std::uint32_t>(e->en_addr);
    src.after_range = static_cast<std::uint32_t>(e->en_addr);
    src.range_branched = e->last_instr_exec && e->last_i_type == OCSD_INSTR_BR;
    src.branched_size = e->last_instr_sz;
    if (!src.cycle_accurate) src.clock += e->num_instr_range;
}

ocsd_datapath_resp_t on_element(const void* p, const ocsd_trc_index_t index, const uint8_t id, const ocsd_generic_trace_elem* e) {
    auto& c = *const_cast<Context*>(static_cast<const Context*>(p));
    auto& s = *c.summary;
    SourceState* source = c.by_channel[id];
    if (!source) return OCSD_RESP_CONT;  // a decoder is created only for a source we decode
    SourceState& src = *source;
    CoreTotals& totals = s.cores[src.index];
    auto at = static_cast<std::uint32_t>(index);
    switch (e->elem_type) {
        case OCSD_GEN_TRC_ELEM_INSTR_RANGE: on_range(c, src, totals, e, at, id); break;
        case OCSD_GEN_TRC_ELEM_EXCEPTION:
            ++s.exceptions;
            ++totals.exceptions;
            src.next_branch = trace::BranchKind::Vector;
            if (src.etm_exception_numbers) {
                const std::uint32_t back = src.range_branched ? c.branch_target(src.after_range, src.branched_size) : src.after_range;
                if (src.returns.size() < 256) src.returns.push_back(back);
                c.push(src, trace::EventKind::ExceptionEntry, back, architectural_exception(e->exception_number), 0, id);
            } else
                c.push(src, trace::EventKind::ExceptionEntry, static_cast<std::uint32_t>(e->en_addr), e->exception_number, 0, id);
            break;
        case OCSD_GEN_TRC_ELEM_EXCEPTION_RET:
            ++s.exception_returns;
            src.next_branch = trace::BranchKind::Resume;
            if (src.etm_exception_numbers && !src.returns.empty()) {  // where it resumes, unless a handler tail-chains first
                src.after_range = src.returns.back();
                src.range_branched = false;
                src.returns.pop_back();
            }
            c.push(src, trace::EventKind::ExceptionReturn, 0, 0, 0, id);
            break;
        // After a gap the trace no longer shows where the last branch went: a call whose callee was
        // filtered out resumes at its own return address, which is no call (nor jump) to there.
        case OCSD_GEN_TRC_ELEM_TRACE_ON:
            ++s.trace_on;
            c.resynchronised(src, at);
            src.next_branch = {};
            if (src.decoded) c.push(src, trace::EventKind::Gap, 0, 1, at, id);
            break;
        case OCSD_GEN_TRC_ELEM_NO_SYNC:  // also where every stream starts, before its first sync
            src.next_branch = {};
            if (!src.decoded) break;
            ++s.gaps;
            if (src.lost_from < 0) src.lost_from = at;
            if (s.first_loss_at < 0) s.first_loss_at = at;
            c.push(src, trace::EventKind::Gap, 0, 2, at, id);
            break;
        case OCSD_GEN_TRC_ELEM_ADDR_NACC:
            src.next_branch = {};
            ++s.gaps;
            c.push(src, trace::EventKind::Gap, static_cast<std::uint32_t>(e->st_addr), 3, at, id);
            break;
        default: break;
    }
    if (e->has_cc || e->elem_type == OCSD_GEN_TRC_ELEM_CYCLE_COUNT) {
        s.cycles += e->cycle_count;
        totals.cycles += e->cycle_count;
        if (src.cycle_accurate) src.clock += e->cycle_count;
    }
    return OCSD_RESP_CONT;
}

// What a fatal datapath response says, when OpenCSD logged no error with it.
std::string fatal_response(ocsd_datapath_resp_t r) {
    switch (r) {
        case OCSD_RESP_FATAL_INVALID_DATA: return "OpenCSD: data path fatal error: invalid trace data (OCSD_RESP_FATAL_INVALID_DATA)";
        case OCSD_RESP_FATAL_NOT_INIT: return "OpenCSD: data path fatal error: decoder not initialised (OCSD_RESP_FATAL_NOT_INIT)";
        case OCSD_RESP_FATAL_INVALID_OP: return "OpenCSD: data path fatal error: invalid operation (OCSD_RESP_FATAL_INVALID_OP)";
        case OCSD_RESP_FATAL_INVALID_PARAM: return "OpenCSD: data path fatal error: invalid parameter (OCSD_RESP_FATAL_INVALID_PARAM)";
        default: return "OpenCSD: data path fatal error " + std::to_string(static_cast<int>(r));
    }
}

void record_error(CaptureSummary& s, std::uint64_t offset, std::string reason) {
    if (s.errors.size() < CaptureSummary::kMaxErrors) s.errors.push_back({offset, std::move(reason)});
    ++s.error_count;
}

// Feeds a buffer to a tree; a fatal response is recorded with OpenCSD's reason and resets the
// decoders, which then look for the next sync, so a damaged stretch costs only itself. A
// formatted buffer holds whole 16-byte frames: a cut one's tail is an error, not fed.
void feed(dcd_tree_handle_t tree, const std::uint8_t* data, std::size_t size, bool formatted, CaptureSummary& summary) {
    if (formatted && size % 16) {
        record_error(summary, size - size % 16,
                     std::to_string(size) + " bytes are not a whole number of 16-byte formatter frames (a cut capture?): the last " +
                         std::to_string(size % 16) + " are not decoded");
        size -= size % 16;
    }
    std::uint32_t done = 0;
    while (done < size) {
        std::uint32_t used = 0;
        ocsd_datapath_resp_t r = ocsd_dt_process_data(tree, OCSD_OP_DATA, done, static_cast<std::uint32_t>(size - done), data + done, &used);
        done += used;
        if (OCSD_DATA_RESP_IS_FATAL(r)) {
            // OpenCSD formats its reason anew each time it is asked (most of the time a stream of
            // garbage takes): asked only while the summary keeps reasons, counted after.
            std::string reason;
            if (summary.errors.size() < CaptureSummary::kMaxErrors) {
                char message[256] = {};
                ocsd_trc_index_t index = done;
                std::uint8_t channel = 0;
                ocsd_err_t err = ocsd_get_last_err(&index, &channel, message, sizeof message);
                reason = message[0] && err != OCSD_OK ? std::string(message) : fatal_response(r);
                while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.pop_back();
            }
            record_error(summary, done, std::move(reason));
            std::uint32_t ignored = 0;
            ocsd_dt_process_data(tree, OCSD_OP_RESET, 0, 0, nullptr, &ignored);
            if (used == 0) ++done;
        }
    }
    std::uint32_t ignored = 0;
    ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, nullptr, &ignored);
}

}  // namespace

CaptureSummary decode_ptm_bytes(const std::uint8_t* data, std::size_t size, const PtmRegisters& regs) {
    return decode_pft({data, size}, regs, {}, {});
}

CaptureSummary decode_pft(std::span<const std::uint8_t> data, const PtmRegisters& regs, std::span<const MemoryImage> memory,
                          const std::vector<trace::TraceSink*>& sinks, bool formatted) {
    CaptureSummary summary;
    trace::EventRecorder recorder;
    for (auto* sink : sinks) recorder.add_sink(*sink);
    auto trace_id = static_cast<std::uint8_t>(regs.trace_id & 0x7F);
    trace::TracedCore source{"PTM_0", "", "", trace_id, regs.core_profile};
    trace::RunInfo info{"pft", "", "", 0, {}, "", {}, {}, {}};
    info.cores.push_back(source);
    recorder.start(info);
    ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 0);  // keeps the last error, which explains a fatal response
    dcd_tree_handle_t tree =
        ocsd_create_dcd_tree(formatted ? OCSD_TRC_SRC_FRAME_FORMATTED : OCSD_TRC_SRC_SINGLE, formatted ? OCSD_DFRMTR_FRAME_MEM_ALIGN : 0);
    if (tree != C_API_INVALID_TREE_HANDLE) {
        ocsd_ptm_cfg cfg{regs.idr, regs.ctrl, regs.ccer, regs.trace_id, ARCH_V7, profile_CortexA};
        unsigned char csid = 0;
        SourceState state;
        state.trace_id = trace_id;
        state.cycle_accurate = (regs.ctrl & (1u << 12)) != 0;  // ETMCR.CycleAccurate
        Context ctx{&summary, &recorder};
        if (ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_PTM, OCSD_CREATE_FLG_FULL_DECODER, &cfg, &csid) == OCSD_OK) {
            ctx.by_channel[csid] = &state;
            summary.trace_ids.push_back(trace_id);
            summary.cores.push_back({source});
            for (const auto& m : memory)
                ocsd_dt_add_buffer_mem_acc(tree, m.address, OCSD_MEM_SPACE_ANY, m.bytes.data(), static_cast<std::uint32_t>(m.bytes.size()));
            ocsd_dt_set_gen_elem_outfn(tree, on_element, &ctx);
            feed(tree, data.data(), data.size(), formatted, summary);
            ctx.resynchronised(state, static_cast<std::uint32_t>(data.size()));  // lost to the end
            summary.bytes = data.size();
        }
        ocsd_destroy_dcd_tree(tree);
    }
    recorder.push({summary.cycles ? summary.cycles : summary.instructions, 0, 0, 0, trace::EventKind::Stop, 0, 0});
    recorder.end();
    return summary;
}

namespace {

// A snapshot directory's description: snapshot.ini, each device's .ini, and the trace's .ini.
struct SnapshotFiles {
    fs::path root;
    Ini snapshot, trace;
    std::map<std::string, Ini> devices;  // by device name
    std::map<std::string, fs::path> device_files;
    std::string snapshot_ini() const { return (root / "snapshot.ini").string(); }
    std::string trace_ini() const { return (root / snapshot.at("trace").at("metadata")).string(); }
};

SnapshotFiles read_snapshot_files(const std::string& dir) {
    SnapshotFiles f;
    f.root = dir;
    f.snapshot = read_ini(f.root, "snapshot.ini", dir);
    if (!f.snapshot.count("device_list") || f.snapshot["device_list"].empty())
        throw ConfigError(f.snapshot_ini() + ": no [device_list]: not an OpenCSD/DS-5 snapshot");
    if (!f.snapshot.count("trace") || !f.snapshot["trace"].count("metadata"))
        throw ConfigError(f.snapshot_ini() + ": no [trace] metadata= naming the trace buffers' .ini");
    for (const auto& [key, file] : f.snapshot["device_list"]) {
        Ini d = read_ini(f.root, file, f.snapshot_ini());
        std::string name = d["device"]["name"];
        f.devices[name] = d;
        f.device_files[name] = f.root / file;
    }
    f.trace = read_ini(f.root, f.snapshot["trace"]["metadata"], f.snapshot_ini());
    return f;
}

// A PTM or ETMv3 source that feeds a buffer, with its registers.
struct SourcePlan {
    std::string buffer, name;
    ocsd_ptm_cfg cfg{};
    trace::TracedCore source;
    bool etm = false;  ///< a Cortex-M3/M4's ETMv3, decoded with etm_cfg
    ocsd_etmv3_cfg etm_cfg{};
};

// Whether the core that trace source `source` traces is an M-profile core (its device type).
bool traces_m_profile(SnapshotFiles& f, const std::map<std::string, std::string>& core_of_source, const std::string& source) {
    auto core = core_of_source.find(source);
    if (core == core_of_source.end()) return false;
    auto d = f.devices.find(core->second);
    if (d == f.devices.end() || !d->second["device"].count("type")) return false;
    const std::string& type = d->second["device"]["type"];
    return type.rfind("Cortex-M", 0) == 0 || type.rfind("cortex-m", 0) == 0;
}

// Every PTM source of the buffers, known before the first event, so that the sinks learn every
// source (and how its core numbers exceptions) at the start. `present`: every source's trace ID,
// for an --id that is none of them.
std::vector<SourcePlan> plan_sources(SnapshotFiles& f, const std::vector<std::string>& buffers, std::uint8_t only_id,
                                     std::vector<std::uint8_t>& present) {
    std::map<std::string, std::string> core_of_source;  // which trace source is which core's
    for (const auto& [core, source] : f.trace["core_trace_sources"]) core_of_source[source] = core;
    std::vector<SourcePlan> plans;
    for (const std::string& buffer : buffers) {
        const auto& b = f.trace[buffer];
        if (!b.count("file")) throw ConfigError(f.trace_ini() + ": buffer " + buffer + " names no file");
        std::string buffer_name = b.count("name") ? b.at("name") : buffer;
        for (const auto& [source, target] : f.trace["source_buffers"]) {
            if (target != buffer_name || !f.devices.count(source)) continue;
            const Ini& dev = f.devices[source];
            std::string type = dev.at("device").count("type") ? dev.at("device").at("type") : "";
            const bool etm = type.rfind("ETM3", 0) == 0;
            if (type.rfind("PFT", 0) != 0 && type.rfind("PTM", 0) != 0 && !etm) continue;
            // An ETMv3 is read when it traces an M-profile core (a Cortex-M3/M4's ETM); an A/R
            // core's (big.LITTLE's Cortex-A7) is not decoded yet.
            if (etm && !traces_m_profile(f, core_of_source, source)) continue;
            const fs::path& file = f.device_files[source];
            SourcePlan plan{buffer, source, {}, {}};
            plan.cfg.reg_idr = reg(dev, "ETMIDR", file);
            plan.cfg.reg_ctrl = reg(dev, "ETMCR", file);
            plan.cfg.reg_ccer = reg(dev, "ETMCCER", file);
            plan.cfg.reg_trc_id = reg(dev, "ETMTRACEIDR", file);
            plan.cfg.arch_ver = ARCH_V7;
            plan.cfg.core_prof = profile_CortexA;
            auto id = static_cast<std::uint8_t>(plan.cfg.reg_trc_id & 0x7F);
            present.push_back(id);
            if (only_id && id != only_id) continue;
            plan.source.name = source;
            plan.source.trace_id = id;
            if (auto core = core_of_source.find(source); core != core_of_source.end()) {
                plan.source.core = core->second;
                if (auto d = f.devices.find(core->second); d != f.devices.end() && d->second["device"].count("type"))
                    plan.source.core_type = d->second["device"]["type"];
            }
            // A PTM traces an A- or R-profile core, except in the snapshots emutrace writes for its M-profile cores.
            bool m_profile = plan.source.core_type.rfind("Cortex-M", 0) == 0 || plan.source.core_type.rfind("cortex-m", 0) == 0;
            plan.source.exceptions = m_profile ? trace::ExceptionModel::MProfile : trace::ExceptionModel::PftA;
            plan.etm = etm;
            plan.etm_cfg = {plan.cfg.reg_idr,    plan.cfg.reg_ctrl, plan.cfg.reg_ccer,
                            plan.cfg.reg_trc_id, ARCH_V7,           m_profile ? profile_CortexM : profile_CortexA};
            plans.push_back(std::move(plan));
        }
    }
    return plans;
}

// The trace buffers the trace's .ini lists, in order.
std::vector<std::string> buffer_names(const std::string& list) {
    std::vector<std::string> names;
    for (std::size_t at = 0; at <= list.size();) {
        std::size_t comma = list.find(',', at);
        std::string buffer = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        at = comma == std::string::npos ? list.size() + 1 : comma + 1;
        if (!buffer.empty()) names.push_back(buffer);
    }
    return names;
}

// The memory images of a traced core, for following the program; `dumps`: those the tree has
// (cores that share memory list the same dump).
void add_memory_dumps(dcd_tree_handle_t tree, SnapshotFiles& f, const std::string& core, std::set<std::pair<std::uint64_t, std::string>>& dumps,
                      Context* keep_code) {
    if (core.empty() || !f.devices.count(core)) return;
    const std::string ini = f.device_files[core].string();
    for (const auto& [section, kv] : f.devices[core]) {
        if (section.rfind("dump", 0) != 0 || !kv.count("file") || !kv.count("address")) continue;
        auto address = config::parse_integer(kv.at("address"));
        if (!address) throw ConfigError(ini + ": bad memory dump " + section + ": no address");
        const fs::path mem = config::input_member(f.root, kv.at("file"), ini, "memory dump");
        if (!dumps.insert({*address, fs::weakly_canonical(mem).string()}).second) continue;
        if (keep_code) keep_code->code.emplace_back(*address, config::read_binary_file(mem.string(), "memory dump"));
        if (ocsd_err_t e = ocsd_dt_add_binfile_mem_acc(tree, *address, OCSD_MEM_SPACE_ANY, mem.c_str()); e != OCSD_OK) {
            char why[128] = {};
            ocsd_err_str(e, why, sizeof why);
            throw ConfigError(ini + ": memory dump " + section + " (" + kv.at("file") + " at " + kv.at("address") + ") rejected by OpenCSD: " + why);
        }
    }
}

// One trace buffer through a decode tree of its sources' decoders.
void decode_buffer(const std::string& buffer, SnapshotFiles& f, std::vector<SourcePlan>& plans, std::vector<SourceState>& states, Context& ctx,
                   CaptureSummary& summary) {
    const auto& b = f.trace[buffer];
    bool formatted = b.count("format") && b.at("format") == "coresight";
    ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 0);  // keeps the last error, which explains a fatal response
    dcd_tree_handle_t tree =
        ocsd_create_dcd_tree(formatted ? OCSD_TRC_SRC_FRAME_FORMATTED : OCSD_TRC_SRC_SINGLE, formatted ? OCSD_DFRMTR_FRAME_MEM_ALIGN : 0);
    if (tree == C_API_INVALID_TREE_HANDLE) throw ConfigError(f.root.string() + ": OpenCSD could not create a decode tree");
    std::set<std::pair<std::uint64_t, std::string>> dumps;
    std::vector<SourceState*> in_tree;
    for (std::size_t i = 0; i < plans.size(); ++i) {
        SourcePlan& plan = plans[i];
        if (plan.buffer != buffer) continue;
        unsigned char csid = 0;
        const ocsd_err_t created = plan.etm ? ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV3, OCSD_CREATE_FLG_FULL_DECODER, &plan.etm_cfg, &csid)
                                            : ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_PTM, OCSD_CREATE_FLG_FULL_DECODER, &plan.cfg, &csid);
        if (created != OCSD_OK)
            throw ConfigError(f.device_files[plan.name].string() + ": OpenCSD rejected the " + (plan.etm ? "ETMv3" : "PTM") + " configuration");
        ctx.by_channel[csid] = &states[i];
        in_tree.push_back(&states[i]);
        summary.trace_ids.push_back(plan.source.trace_id);
        add_memory_dumps(tree, f, plan.source.core, dumps, plan.etm ? &ctx : nullptr);
    }
    // After the decoders exist: OpenCSD attaches the output to the decoders it has.
    ocsd_dt_set_gen_elem_outfn(tree, on_element, &ctx);
    const fs::path buffer_file = config::input_member(f.root, b.at("file"), f.trace_ini(), "trace buffer");
    std::vector<std::uint8_t> data = config::read_binary_file(buffer_file.string(), "trace buffer");
    feed(tree, data.data(), data.size(), formatted, summary);
    for (SourceState* state : in_tree) ctx.resynchronised(*state, static_cast<std::uint32_t>(data.size()));
    summary.bytes += data.size();
    ocsd_destroy_dcd_tree(tree);
    ctx.by_channel = {};  // the next buffer's decoders may reuse the channels
    ctx.lost_until = 0;
}

}  // namespace

CaptureSummary decode_snapshot(const std::string& dir, std::uint8_t only_id, const std::vector<trace::TraceSink*>& sinks) {
    SnapshotFiles files = read_snapshot_files(dir);
    const std::vector<std::string> buffers = buffer_names(files.trace["trace_buffers"]["buffers"]);
    std::vector<std::uint8_t> present;
    std::vector<SourcePlan> plans = plan_sources(files, buffers, only_id, present);

    CaptureSummary summary;
    summary.snapshot = dir;
    trace::EventRecorder recorder;
    for (auto* sink : sinks) recorder.add_sink(*sink);
    trace::RunInfo info{"capture", dir, "", 0, {}, "", {}, {}, {}};
    for (const SourcePlan& plan : plans) {
        info.cores.push_back(plan.source);
        summary.cores.push_back({plan.source});
    }
    if (plans.size() == 1) info.cpu = plans[0].source.core_type;
    recorder.start(info);
    std::vector<SourceState> states(plans.size());
    for (std::size_t i = 0; i < plans.size(); ++i) {
        states[i].index = static_cast<std::uint32_t>(i);
        states[i].trace_id = plans[i].source.trace_id;
        states[i].cycle_accurate = (plans[i].cfg.reg_ctrl & (1u << 12)) != 0;  // ETMCR.CycleAccurate
        states[i].etm_exception_numbers = plans[i].etm && plans[i].source.exceptions == trace::ExceptionModel::MProfile;
    }
    Context ctx{&summary, &recorder};
    ctx.announce = plans.size() > 1;
    for (const std::string& buffer : buffers) decode_buffer(buffer, files, plans, states, ctx, summary);
    if (present.empty()) throw ConfigError(dir + ": no PTM/PFT or ETMv3 trace source feeds a trace buffer (trace.ini [source_buffers])");
    if (only_id && std::find(present.begin(), present.end(), only_id) == present.end()) {
        std::string ids;
        for (auto id : present) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
        throw ConfigError(dir + ": --id " + std::to_string(only_id) + " is not in the capture; its trace IDs are " + ids);
    }
    // The run ends when the last source's trace does.
    std::uint64_t end = 0;
    for (const SourceState& state : states) end = std::max(end, state.clock);
    recorder.push({end, 0, 0, 0, trace::EventKind::Stop, 0, 0});
    recorder.end();
    return summary;
}

}  // namespace emutrace::decode
