#pragma once
// Runs a sink on a thread of its own. Batches collect in large chunks that the sink's thread
// replays in order, so a costly sink (the PFT encoder, a file writer) overlaps the emulation
// instead of adding to it. The inner sink sees exactly the batches it would have seen directly.
// The source writes its batches straight into the chunk (BatchStorage): at tens of millions of
// events a second, copying them would cost the emulation thread as much as producing them.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "emutrace/sink.h"

namespace emutrace::trace {

class BackgroundSink final : public TraceSink, private BatchStorage {
public:
    /// `inner` must outlive this sink. A chunk holds at least `chunk_events` events before it is
    /// handed over; `chunks` of them are in flight at most (the emulation waits when all are).
    explicit BackgroundSink(TraceSink& inner, std::size_t chunk_events = 16384, std::size_t chunks = 8);
    ~BackgroundSink() override;
    BackgroundSink(const BackgroundSink&) = delete;
    BackgroundSink& operator=(const BackgroundSink&) = delete;

    std::uint32_t wants() const override { return inner_.wants(); }
    /// Calls the inner sink's on_start on this thread, then starts the sink's thread.
    void on_start(const RunInfo& info) override;
    /// Keeps the batch (a copy, unless it was written into this sink's storage). Never throws: it
    /// runs inside the emulator's hooks, so what the inner sink throws on its thread is kept for on_end.
    void on_batch(const EventBatch& batch) override;
    /// Waits for the sink's thread to replay everything, rethrows what the inner sink threw, then
    /// calls the inner on_end on this thread.
    void on_end() override;
    BatchStorage* batch_storage() override { return this; }
    /// Waits until the sink's thread has replayed every batch so far: until the next batch, the
    /// inner sink's state may be read on this thread (a long run's checkpoint).
    void settle();

private:
    struct Chunk {
        std::vector<Event> events;  ///< sized once; `used` of them hold batches
        std::size_t used = 0;
        std::string text;
        std::vector<std::pair<std::size_t, std::size_t>> ends;  ///< each batch's end in events and text
    };

    Event* next_batch(std::size_t events) override;
    void hand_over();
    void replay_loop();
    void stop();
    void rethrow_failure();

    TraceSink& inner_;
    std::size_t chunk_events_;
    std::unique_ptr<Chunk> filling_;
    std::mutex mutex_;
    std::condition_variable ready_cv_, free_cv_;
    std::vector<std::unique_ptr<Chunk>> ready_;  ///< in order, oldest first
    std::vector<std::unique_ptr<Chunk>> free_;
    bool closing_ = false;
    bool worker_waiting_ = false;
    bool replaying_ = false;  ///< the worker holds a chunk it has taken from ready_
    std::exception_ptr failure_;
    std::thread worker_;
};

}  // namespace emutrace::trace
