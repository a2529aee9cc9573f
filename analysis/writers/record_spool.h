#pragma once
// Fixed-size records kept for the end of a run in a temporary file, a chunk at a time, so that a
// run of days keeps a flat memory however many it collects (the Perfetto trace's call events and
// constraint windows, which it can only write once the run is over).

#include <array>
#include <cstdio>
#include <type_traits>
#include <vector>

namespace emutrace::analysis {

template <typename Record, std::size_t kChunk = 8192>
class RecordSpool {
    static_assert(std::is_trivially_copyable_v<Record>, "records go to the file as bytes");

public:
    RecordSpool() = default;
    ~RecordSpool() {
        if (file_) std::fclose(file_);
    }
    RecordSpool(const RecordSpool&) = delete;
    RecordSpool& operator=(const RecordSpool&) = delete;

    void add(const Record& r) {
        chunk_[in_chunk_++] = r;
        if (in_chunk_ == kChunk) spill();
    }
    /// Records kept (added and not lost).
    std::size_t size() const { return spilled_ + in_chunk_; }
    /// Records lost because the temporary file could not be written.
    std::size_t lost() const { return lost_; }
    /// Calls `f` with each record kept, in order; false when the file could not be read back.
    template <typename F>
    bool for_each(F&& f) const {
        if (file_) {
            std::rewind(file_);
            std::vector<Record> buffer(kChunk);
            for (std::size_t left = spilled_; left;) {
                std::size_t n = std::fread(buffer.data(), sizeof(Record), left < kChunk ? left : kChunk, file_);
                if (n == 0) return false;
                for (std::size_t i = 0; i < n; ++i) f(buffer[i]);
                left -= n;
            }
            std::fseek(file_, 0, SEEK_END);
        }
        for (std::size_t i = 0; i < in_chunk_; ++i) f(chunk_[i]);
        return true;
    }

private:
    void spill() {
        if (!file_) file_ = std::tmpfile();  // unlinked: gone when closed, also on a crash
        if (file_ && std::fwrite(chunk_.data(), sizeof(Record), in_chunk_, file_) == in_chunk_)
            spilled_ += in_chunk_;
        else
            lost_ += in_chunk_;
        in_chunk_ = 0;
    }

    std::array<Record, kChunk> chunk_{};
    std::size_t in_chunk_ = 0;
    std::FILE* file_ = nullptr;
    std::size_t spilled_ = 0;
    std::size_t lost_ = 0;
};

}  // namespace emutrace::analysis
