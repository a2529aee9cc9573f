#pragma once
// Memory ranges a device watches (the DWT's comparators, DeviceHost::watch_data): a memory hook on
// each range, installed at the next block boundary, since code translated without the hooks would
// not call them; and, while a watch needs each access's pc, a hook on every instruction (Unicorn
// 2.0.1's pc in a memory hook is the block's, P7). A run whose firmware watches nothing pays
// nothing.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "emu/detail/unicorn_core.h"
#include "emu/memory_map.h"
#include "emu/peripherals/peripheral.h"

namespace emutrace::emu::detail {

class DataWatches {
public:
    /// `owner` watches `watches` from the next block on, replacing what any device watched.
    void request(Peripheral& owner, std::vector<DataWatch> watches);
    /// A request waits for the next block boundary.
    bool pending() const { return pending_; }
    /// Installs the request's hooks, and drops the translated code of `plan`'s executable regions
    /// so that it is translated again with them.
    void apply(UnicornCore& uc, const MemoryPlan& plan);

private:
    static void on_load(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
    static void on_store(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
    static void on_instruction(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
    void hit(unsigned watch, std::uint64_t address, int size, std::int64_t value, bool store);

    struct Hooked {
        DataWatches* watches;
        unsigned index;
    };
    static constexpr std::size_t kMostWatches = 16;
    Peripheral* owner_ = nullptr;
    std::vector<DataWatch> watches_;
    bool pending_ = false;
    std::vector<uc_hook> hooks_;
    std::vector<std::unique_ptr<Hooked>> hooked_;  ///< the hooks' user data: stable addresses
    std::optional<uc_hook> pc_hook_;
    std::uint32_t pc_ = 0;  ///< the instruction running, while a watch wants it
};

}  // namespace emutrace::emu::detail
