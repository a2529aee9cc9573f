#pragma once
// A byte stream as a logic analyser samples it on a trace pin in NRZ (UART) mode, for sigrok-cli's
// binary input (one channel, 4 samples a bit, idle high): what its uart decoder and the trace
// decoders stacked on it (arm_tpiu, arm_itm, arm_etmv3) read.
#include <set>
#include <string>

namespace emutrace::test {

/// `gap_before`: byte offsets with a pause of 200 bit times before them (sigrok's arm_itm starts a
/// packet after one).
inline std::string uart_waveform(const std::string& stream, const std::set<std::size_t>& gap_before = {}) {
    constexpr int kPerBit = 4;
    std::string out(40 * kPerBit, '\1');
    for (std::size_t i = 0; i < stream.size(); ++i) {
        if (gap_before.count(i)) out.append(200 * kPerBit, '\1');
        const auto b = static_cast<unsigned char>(stream[i]);
        out.append(kPerBit, '\0');  // start bit
        for (int bit = 0; bit < 8; ++bit) out.append(kPerBit, static_cast<char>(b >> bit & 1));
        out.append(kPerBit, '\1');  // stop bit
    }
    out.append(400 * kPerBit, '\1');
    return out;
}

/// The sigrok-cli command that reads such a waveform (written to `file`) through `decoders`
/// ("arm_itm", "arm_tpiu:stream=1,arm_itm") at 250,000 baud and prints `annotations`' lines.
inline std::string sigrok_uart(const std::string& file, const std::string& decoders, const std::string& annotations) {
    return "sigrok-cli -I binary:numchannels=1:samplerate=1000000 -i " + file + " -P uart:rx=0:baudrate=250000," + decoders + " -A " + annotations;
}

}  // namespace emutrace::test
