#pragma once
// A host byte source the scenario names for a device's RX line (`uart_rx: {from: PATH}`): a file,
// a FIFO another program writes, or a Unix socket another program listens on. Read without
// blocking at each poll, so the firmware gets bytes when the host has them: live input, whose
// arrival points a recording (--record) captures. Only a path the scenario names is opened.

#include <string>

namespace emutrace::emu {

class LiveSource {
public:
    explicit LiveSource(std::string path) : path_(std::move(path)) {}
    ~LiveSource();
    LiveSource(const LiveSource&) = delete;
    LiveSource& operator=(const LiveSource&) = delete;

    /// Opens the path; throws ConfigError "<path>: cannot open: <why>".
    void open();
    /// The bytes the host has written since the last poll (at most 4 KiB); empty when none.
    std::string poll();
    /// The other side closed (end of file, socket shut down): no more bytes will come.
    bool ended() const { return ended_; }
    const std::string& path() const { return path_; }

private:
    std::string path_;
    int fd_ = -1;
    bool ended_ = false;
};

}  // namespace emutrace::emu
