#include "analysis/replay/event_log_writer.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "emutrace/config_error.h"

namespace emutrace::analysis::replay {
namespace {

constexpr std::size_t kBufferBytes = 64 * 1024;

}  // namespace

void EventLogWriter::open() {
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_) throw ConfigError(path_ + ": cannot write the event log: " + std::strerror(errno));
    struct stat st {};
    seekable_ = ::fstat(::fileno(file_), &st) == 0 && S_ISREG(st.st_mode);
    buffer_.reserve(kBufferBytes + kLogRecordBytes);
    encode_header(buffer_, 0, 0, 0, 0);  // rewritten by finish(): a log cut short reads as empty, not as garbage
}

EventLogWriter::~EventLogWriter() {
    if (file_) std::fclose(file_);
}

void EventLogWriter::append(const LogEvent& e) {
    if (!file_) open();
    encode_record(buffer_, e);
    ++records_;
    if (seekable_ && buffer_.size() >= kBufferBytes) flush();
}

void EventLogWriter::flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
    buffer_.clear();
}

void EventLogWriter::finish(std::uint16_t flags, std::uint32_t timing) {
    if (!file_) open();
    std::vector<std::uint8_t> header;
    encode_header(header, records_, flags, 0, timing);
    if (seekable_) {
        flush();
        if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0 || std::fwrite(header.data(), 1, header.size(), file_) != header.size())
            failed_ = true;
    } else {  // the whole log is still here: its header first, then written once
        std::copy(header.begin(), header.end(), buffer_.begin());
        flush();
    }
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (failed_ || closed != 0) throw ConfigError(path_ + ": cannot write the event log (disk full?)");
}

}  // namespace emutrace::analysis::replay
