#pragma once
// The only place that includes <unicorn/unicorn.h>. Owns the engine and every hook; a failing
// Unicorn call throws UnicornError carrying uc_strerror and what was being done.

#include <unicorn/unicorn.h>

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/feed/running_core.h"

namespace emutrace::emu::detail {

class UnicornError : public std::runtime_error {
public:
    UnicornError(const std::string& what, uc_err err) : std::runtime_error(what + ": " + uc_strerror(err)), err_(err) {}
    uc_err code() const { return err_; }

private:
    uc_err err_;
};

class UnicornCore final : public models::RunningCore {
public:
    /// Opens a Thumb M-class engine and selects the CPU model before any mapping (Unicorn
    /// silently falls back to Cortex-M33 when the model is set after uc_mem_map).
    explicit UnicornCore(int cpu_model);
    ~UnicornCore();
    UnicornCore(const UnicornCore&) = delete;
    UnicornCore& operator=(const UnicornCore&) = delete;

    uc_engine* get() const { return uc_; }
    std::uint32_t page_size() const;

    void map_memory(std::uint32_t base, std::uint32_t size, std::uint32_t perms);
    void map_mmio(std::uint32_t base, std::uint32_t size, uc_cb_mmio_read_t read, uc_cb_mmio_write_t write, void* user);
    void write_memory(std::uint32_t address, std::span<const std::uint8_t> bytes);
    /// False when any byte is unmapped; never throws (firmware passes arbitrary pointers).
    bool read_memory(std::uint32_t address, std::span<std::uint8_t> out) const;

    std::uint32_t reg(int id) const;
    void set_reg(int id, std::uint32_t value);
    /// The 64-bit registers (d0-d15).
    std::uint64_t reg64(int id) const;
    void set_reg64(int id, std::uint64_t value);

    /// Adds a hook owned by this object; `begin > end` means all addresses.
    void add_hook(int type, void* callback, void* user, std::uint64_t begin = 1, std::uint64_t end = 0);

    /// A hook the caller removes again (a debugger's breakpoint): its handle.
    uc_hook add_removable_hook(int type, void* callback, void* user, std::uint64_t begin = 1, std::uint64_t end = 0);
    void remove_hook(uc_hook hook);

    /// Drops the translated code of [begin, end): it is translated again, with the hooks added since.
    void remove_cache(std::uint32_t begin, std::uint32_t end);

    uc_err start(std::uint32_t begin, std::uint32_t until);
    void stop();

    // models::RunningCore: what a cycle model's feed reads and asks for.
    std::uint32_t core_register(unsigned r) const override;
    std::uint32_t program_status() const override { return reg(UC_ARM_REG_XPSR); }
    bool read_code(std::uint32_t address, std::span<std::uint8_t> out) const override { return read_memory(address, out); }
    void call_before(std::uint32_t address, Before before, void* context) override;
    void retranslate(std::uint32_t begin, std::uint32_t end) override { remove_cache(begin, end); }

private:
    struct BeforeCall {
        Before before;
        void* context;
    };
    static void on_before(uc_engine*, std::uint64_t address, std::uint32_t, void* user);
    uc_engine* uc_ = nullptr;
    std::vector<uc_hook> hooks_;
    std::vector<std::unique_ptr<BeforeCall>> before_calls_;  ///< call_before's, where their hooks point
};

}  // namespace emutrace::emu::detail
