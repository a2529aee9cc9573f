#include "emu/detail/unicorn_core.h"

#include <spdlog/spdlog.h>

#include "emu/detail/unicorn_store_path.h"

#define CHECKED(expr, what)                                                      \
    do {                                                                         \
        uc_err checked_err_ = (expr);                                            \
        if (checked_err_ != UC_ERR_OK) throw UnicornError((what), checked_err_); \
    } while (0)

namespace emutrace::emu::detail {

UnicornCore::UnicornCore(int cpu_model) {
    CHECKED(uc_open(UC_ARCH_ARM, static_cast<uc_mode>(UC_MODE_THUMB | UC_MODE_MCLASS), &uc_), "uc_open");
    uc_err err = uc_ctl_set_cpu_model(uc_, cpu_model);
    if (err != UC_ERR_OK) {
        uc_close(uc_);
        throw UnicornError("selecting the CPU model", err);
    }
    spdlog::debug("Unicorn's guest stores {} its page-lock tree", unicorn_store_path_without_page_locks() ? "skip" : "build");
}

UnicornCore::~UnicornCore() {
    for (uc_hook h : hooks_) uc_hook_del(uc_, h);
    uc_close(uc_);
}

std::uint32_t UnicornCore::page_size() const {
    std::uint32_t size = 0;
    CHECKED(uc_ctl_get_page_size(uc_, &size), "reading the page size");
    return size;
}

void UnicornCore::map_memory(std::uint32_t base, std::uint32_t size, std::uint32_t perms) {
    CHECKED(uc_mem_map(uc_, base, size, perms), "mapping memory at " + std::to_string(base));
}

void UnicornCore::map_mmio(std::uint32_t base, std::uint32_t size, uc_cb_mmio_read_t read, uc_cb_mmio_write_t write, void* user) {
    CHECKED(uc_mmio_map(uc_, base, size, read, user, write, user), "mapping an MMIO window at " + std::to_string(base));
}

void UnicornCore::write_memory(std::uint32_t address, std::span<const std::uint8_t> bytes) {
    CHECKED(uc_mem_write(uc_, address, bytes.data(), bytes.size()), "writing memory at " + std::to_string(address));
}

bool UnicornCore::read_memory(std::uint32_t address, std::span<std::uint8_t> out) const {
    if (static_cast<std::uint64_t>(address) + out.size() > 0x1'0000'0000ull) return false;
    return uc_mem_read(uc_, address, out.data(), out.size()) == UC_ERR_OK;
}

std::uint32_t UnicornCore::reg(int id) const {
    std::uint32_t v = 0;
    uc_reg_read(uc_, id, &v);
    return v;
}

void UnicornCore::set_reg(int id, std::uint32_t value) {
    uc_reg_write(uc_, id, &value);
}

void UnicornCore::add_hook(int type, void* callback, void* user, std::uint64_t begin, std::uint64_t end) {
    uc_hook h = 0;
    CHECKED(uc_hook_add(uc_, &h, type, callback, user, begin, end), "adding a hook");
    hooks_.push_back(h);
}

uc_hook UnicornCore::add_removable_hook(int type, void* callback, void* user, std::uint64_t begin, std::uint64_t end) {
    uc_hook h = 0;
    CHECKED(uc_hook_add(uc_, &h, type, callback, user, begin, end), "adding a hook");
    return h;
}

void UnicornCore::remove_hook(uc_hook hook) {
    uc_hook_del(uc_, hook);
}

std::uint64_t UnicornCore::reg64(int id) const {
    std::uint64_t v = 0;
    uc_reg_read(uc_, id, &v);
    return v;
}

void UnicornCore::set_reg64(int id, std::uint64_t value) {
    uc_reg_write(uc_, id, &value);
}

std::uint32_t UnicornCore::core_register(unsigned r) const {
    return reg(r < 13 ? UC_ARM_REG_R0 + static_cast<int>(r) : r == 13 ? UC_ARM_REG_SP : r == 14 ? UC_ARM_REG_LR : UC_ARM_REG_PC);
}

void UnicornCore::on_before(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    const auto& call = *static_cast<const BeforeCall*>(user);
    call.before(call.context, static_cast<std::uint32_t>(address));
}

void UnicornCore::call_before(std::uint32_t address, Before before, void* context) {
    before_calls_.push_back(std::make_unique<BeforeCall>(BeforeCall{before, context}));
    add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(on_before), before_calls_.back().get(), address, address);
}

void UnicornCore::remove_cache(std::uint32_t begin, std::uint32_t end) {
    CHECKED(uc_ctl_remove_cache(uc_, begin, end), "dropping translated code");
}

uc_err UnicornCore::start(std::uint32_t begin, std::uint32_t until) {
    return uc_emu_start(uc_, begin, until, 0, 0);
}

void UnicornCore::stop() {
    uc_emu_stop(uc_);
}

}  // namespace emutrace::emu::detail
