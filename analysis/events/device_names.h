#pragma once
// A run's devices and their SVD registers, as the sinks that name device accesses need them
// (RunInfo::devices and device_registers): the event log's "register" key, the Perfetto trace's
// device tracks and the report's register table.

#include <cstdint>
#include <string>
#include <vector>

#include "emutrace/sink.h"

namespace emutrace::analysis {

struct DeviceNames {
    std::vector<std::string> devices;
    std::vector<std::vector<trace::DeviceRegister>> registers;  ///< per device, as its SVD gives them

    void start(const trace::RunInfo& info) {
        devices = info.devices;
        registers = info.device_registers;
    }
    /// The device's name, "device7" for one the run did not name.
    std::string device(std::uint16_t index) const { return index < devices.size() ? devices[index] : "device" + std::to_string(index); }
    /// The register of device `index` that covers byte `offset`, or null.
    const trace::DeviceRegister* register_at(std::uint16_t index, std::uint32_t offset) const {
        if (index >= registers.size()) return nullptr;
        for (const auto& r : registers[index])
            if (offset >= r.offset && offset < r.offset + r.bytes) return &r;
        return nullptr;
    }
};

}  // namespace emutrace::analysis
