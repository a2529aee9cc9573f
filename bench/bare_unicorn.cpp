#include "bench/bare_unicorn.h"

#include <unicorn/unicorn.h>

#include <cstdint>
#include <cstdio>

#include "bench/bench_timing.h"

namespace emutrace::bench {
namespace {

void empty_block_hook(uc_engine*, std::uint64_t, std::uint32_t, void*) {}

}  // namespace

double run_bare_unicorn(const decode::ElfImage& image, bool block_hook) {
    uc_engine* uc = nullptr;
    uc_open(UC_ARCH_ARM, static_cast<uc_mode>(UC_MODE_THUMB | UC_MODE_MCLASS), &uc);
    uc_ctl_set_cpu_model(uc, UC_CPU_ARM_CORTEX_M3);
    uc_mem_map(uc, 0x00000000, 4 << 20, UC_PROT_READ | UC_PROT_EXEC);
    uc_mem_map(uc, 0x20000000, 4 << 20, UC_PROT_ALL);
    for (const auto& s : image.segments()) uc_mem_write(uc, s.load_address, s.bytes.data(), s.bytes.size());
    std::uint32_t sp = 0, pc = 0;
    uc_mem_read(uc, 0, &sp, 4);
    uc_mem_read(uc, 4, &pc, 4);
    uc_reg_write(uc, UC_ARM_REG_SP, &sp);
    uc_hook h = 0;
    if (block_hook) uc_hook_add(uc, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(empty_block_hook), nullptr, 1, 0);
    double t0 = cpu_now();
    uc_err err = uc_emu_start(uc, pc | 1, 0xFFFFFFFE, 0, 0);  // ends at the first BKPT (no INTR hook)
    double s = cpu_now() - t0;
    if (err != UC_ERR_EXCEPTION) std::fprintf(stderr, "bench: bare Unicorn ended unexpectedly: %s\n", uc_strerror(err));
    uc_close(uc);
    return s;
}

}  // namespace emutrace::bench
