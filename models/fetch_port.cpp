#include "models/fetch_port.h"

#include <algorithm>
#include <vector>

namespace emutrace::models {
namespace {

constexpr int kQueueHalfwords = 6;  // 3 words: the decode register and two behind it
constexpr int kFetchToExecute = 3;  // address phase, data phase, decode, then execute
constexpr int kNotFetched = 1 << 30;

// Each instruction's first cycle, simulated cycle by cycle.
std::vector<int> starts(std::span<const PortInstruction> block, std::span<const int> cycles, std::uint64_t on_port, bool refilled) {
    const std::size_t n = block.size();
    const std::uint32_t first_word = block.front().address & ~3u;
    const PortInstruction& last = block.back();
    const std::size_t words = ((last.address + last.size + 3 - first_word) >> 2) + 4;
    std::vector<int> fetched(words, kNotFetched);  // by word index from the block's first: its address phase
    std::size_t next_word = 0;
    if (!refilled)  // fell through with the queue full: the first three words are there
        for (; next_word < std::min<std::size_t>(3, words); ++next_word) fetched[next_word] = -kFetchToExecute;
    auto word_of = [first_word](std::uint32_t address) { return static_cast<std::size_t>((address - first_word) >> 2); };

    std::vector<int> start(n, -1);
    int total = 0;
    for (std::size_t i = 0; i < n; ++i) total += cycles[i] + block[i].reads;
    // Cycles a data read takes the port; the fetch can cost each instruction at most a few.
    std::vector<bool> data(static_cast<std::size_t>(4 * total) + 8 * n + 64, false);
    const int limit = static_cast<int>(data.size()) - 8;
    std::size_t next = 0;  // the first instruction not yet started
    int free_at = 0;       // the execute stage takes a new instruction from this cycle
    for (int c = 0; next < n && c < limit; ++c) {
        // Whether the next instruction starts in c + 1: decided now, since a pipelined load's
        // address phase may fall in cycle c.
        const PortInstruction& insn = block[next];
        std::size_t last_word = word_of(insn.address + insn.size - 1);
        if (free_at <= c + 1 && last_word < words && fetched[last_word] <= c + 1 - kFetchToExecute) {
            int s = c + 1;
            start[next] = s;
            free_at = s + cycles[next];
            if (insn.speculates) data[static_cast<std::size_t>(c)] = true;  // its target's fetch, in its decode cycle
            if (next < 64 && (on_port >> next & 1) && insn.reads) {
                int data_phase = s + cycles[next] - 1 + (insn.overlapped ? 1 : 0);
                for (int r = 0; r < insn.reads; ++r)
                    if (auto at = static_cast<std::size_t>(std::max(c, data_phase - insn.reads + r)); at < data.size()) data[at] = true;
            }
            ++next;
        }
        if (data[static_cast<std::size_t>(c)] || next_word >= words) continue;
        // Queue occupancy at c, from the decode position on: words arrived (address phase two
        // or more cycles ago) and words in flight, the decode register counting as a whole word.
        std::size_t decoding = next && start[next - 1] > c ? next - 1 : next;  // starting in c + 1: still in decode
        std::uint32_t decode_at = decoding < n ? block[decoding].address : last.address + last.size;
        int arrived = 0, in_flight = 0;
        for (std::size_t w = word_of(decode_at & ~3u); w < next_word; ++w) {
            if (fetched[w] <= c - 2)
                arrived += 2;
            else
                in_flight += 1;
        }
        if (arrived && (decode_at & 2) && fetched[word_of(decode_at)] <= c - 2) arrived -= 1;
        int used = (arrived ? 2 : 0) + 2 * in_flight + std::max(0, arrived - 2);
        // The fetch may count on the space the decoded instruction frees when it moves to execute
        // next cycle, unless it is a load waiting there for the load before it to finish (LDM
        // behind LDM, LDR behind LDM: ldm_narrow; a pipelined LDR may: ldm_ldmdb).
        bool advancing = decoding < n && start[decoding] == c + 1 &&
                         !(decoding && block[decoding].reads && !block[decoding].pipelined && block[decoding - 1].reads);
        if (advancing && kQueueHalfwords - used < 2) used -= block[decoding].size / 2;
        if (kQueueHalfwords - used >= 2) fetched[next_word++] = c;
    }
    for (std::size_t i = next; i < n; ++i) start[i] = free_at + static_cast<int>(i - next);  // beyond the bound: no loss
    return start;
}

}  // namespace

Starvation fetch_starvation(std::span<const PortInstruction> block, std::uint64_t on_port, bool refilled) {
    if (block.empty() || !on_port) return {};
    // A load pipelines only behind one to the same memory: where one reads the port and the one
    // before does not, or the other way round, it takes its cycle back (the machine counts that).
    auto on = [on_port](std::size_t i) { return i < 64 && (on_port >> i & 1); };
    std::vector<int> cycles(block.size());
    std::vector<bool> pipelined(block.size());
    for (std::size_t i = 0; i < block.size(); ++i) {
        bool broken = block[i].pipelined && i && on(i) != on(i - 1);
        pipelined[i] = block[i].pipelined && !broken;
        cycles[i] = block[i].cycles + (broken ? 1 : 0);
    }
    std::vector<int> with = starts(block, cycles, on_port, refilled), without = starts(block, cycles, 0, refilled);
    Starvation s;
    int lost_before = 0;
    for (std::size_t i = 0; i < block.size(); ++i) {
        int lost = with[i] - without[i];
        // Held up, a pipelined load, or an instruction meant to run in a load's data phase, leaves
        // the load a data phase of its own: an LSU cycle.
        if (lost > lost_before && (pipelined[i] || (i && block[i - 1].overlapped))) ++s.lsu;
        lost_before = std::max(lost_before, lost);
    }
    s.cycles = static_cast<std::uint32_t>(std::max(0, lost_before));
    s.lsu = std::min(s.lsu, s.cycles);
    return s;
}

std::vector<std::uint32_t> speculation_delays(std::span<const PortInstruction> run, bool refilled) {
    std::vector<std::uint32_t> delays(run.size(), 0);
    if (run.empty()) return delays;
    std::vector<int> cycles(run.size());
    for (std::size_t i = 0; i < run.size(); ++i) cycles[i] = run[i].cycles;
    std::vector<PortInstruction> plain(run.begin(), run.end());
    for (auto& insn : plain) insn.speculates = false;
    std::vector<int> with = starts(run, cycles, 0, refilled), without = starts(plain, cycles, 0, refilled);
    int most = 0;
    for (std::size_t i = 0; i < run.size(); ++i) delays[i] = static_cast<std::uint32_t>(most = std::max(most, with[i] - without[i]));
    return delays;
}

}  // namespace emutrace::models
