#pragma once
// The producer side of the event model: sources append events here and the recorder hands them to
// every sink in batches. Appending is a store and an increment; nothing allocates per event.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "emutrace/sink.h"

namespace emutrace::trace {

static_assert(offsetof(Event, width) == offsetof(Event, kind) + 1 && offsetof(Event, channel) == offsetof(Event, kind) + 2,
              "push_block writes kind, width and channel as one word");
static_assert(std::endian::native == std::endian::little, "push_block's combined store assumes a little-endian host");

class EventRecorder {
public:
    static constexpr std::size_t kBatchSize = 256;  // 6 KiB: still in L1 when the sinks read it back

    EventRecorder() = default;
    EventRecorder(const EventRecorder&) = delete;  // events_ may point into own_
    EventRecorder& operator=(const EventRecorder&) = delete;

    /// The first sink that lends storage gets the batches written into it; the others read them there.
    void add_sink(TraceSink& sink) {
        sinks_.push_back(&sink);
        const std::uint32_t w = sink.wants();
        wants_ |= w;
        block_costs_wanted_ = block_costs_wanted_ || ((w & WantBlocks) && !(w & BlockCostUnused));
        if (!storage_ && (storage_ = sink.batch_storage())) events_ = storage_->next_batch(kBatchSize);
    }
    /// The union of what the sinks want: sources skip events nobody asked for.
    std::uint32_t wants() const { return wants_; }
    bool wants(Capability c) const { return (wants_ & c) != 0; }
    /// Some sink that wants blocks reads their costs (it does not say BlockCostUnused).
    bool block_costs_wanted() const { return block_costs_wanted_; }

    void start(const RunInfo& info) {
        for (auto* s : sinks_) s->on_start(info);
        if (storage_ && count_ == 0) events_ = storage_->next_batch(kBatchSize);  // the sink may have started afresh
    }

    void push(const Event& e) {
        events_[count_++] = e;
        if (count_ == kBatchSize) [[unlikely]]
            flush();
    }

    /// Appends a Block event; the hot path of every source, so it writes the slot in place and
    /// flushes last, where the call can be a tail call.
    void push_block(std::uint64_t cycle, std::uint32_t address, std::uint32_t size, std::uint32_t instructions, std::uint32_t cost,
                    std::uint8_t end = 0) {
        Event& e = events_[count_++];
        e.cycle = cycle;
        e.address = address;
        e.value = size;
        e.extra = instructions;
        // kind, width and channel in one 32-bit store (little-endian host layout, checked below)
        std::uint32_t tail = static_cast<std::uint32_t>(EventKind::Block) | std::uint32_t{end} << 8 | (cost < 0xFFFF ? cost : 0xFFFFu) << 16;
        std::memcpy(reinterpret_cast<char*>(&e) + offsetof(Event, kind), &tail, sizeof tail);
        if (count_ == kBatchSize) [[unlikely]]
            flush();
    }

    /// Keeps `text` with the current batch; returns its offset for the event that refers to it.
    std::uint32_t keep_text(std::string_view text) {
        auto offset = static_cast<std::uint32_t>(text_.size());
        text_.append(text);
        return offset;
    }

    /// An Output event whose text is kept with the batch.
    void push_output(std::uint64_t cycle, std::uint16_t channel, std::string_view text) {
        Event e{};
        e.cycle = cycle;
        e.kind = EventKind::Output;
        e.channel = channel;
        e.extra = static_cast<std::uint32_t>(text.size());
        e.value = keep_text(text);
        push(e);
    }

    /// Makes sure `n` more events fit in the batch before it is sent (flushes it otherwise).
    void make_room(std::size_t n) {
        if (kBatchSize - count_ < n) flush();
    }
    /// The events pushed from `first` on, still in the batch, for a source that learns their cost
    /// only later (the pipeline model's blocks); null once the batch has gone out.
    Event* unsent(std::size_t first, std::uint64_t batch) { return batch == batches_ && first < count_ ? events_ + first : nullptr; }
    /// Where the next event goes: its index in the batch and the batch's number.
    std::size_t next_index() const { return count_; }
    std::uint64_t batch_number() const { return batches_; }

    [[gnu::noinline]] void flush() {
        if (count_ == 0) return;
        ++batches_;
        EventBatch batch{std::span<const Event>(events_, count_), text_};
        for (auto* s : sinks_) s->on_batch(batch);
        count_ = 0;
        text_.clear();
        if (storage_) events_ = storage_->next_batch(kBatchSize);
    }

    /// Flushes what is left and tells every sink the run is over.
    void end() {
        flush();
        for (auto* s : sinks_) s->on_end();
    }

private:
    std::vector<TraceSink*> sinks_;
    std::uint32_t wants_ = 0;
    bool block_costs_wanted_ = false;
    std::array<Event, kBatchSize> own_{};
    Event* events_ = own_.data();  ///< own_, or the lending sink's storage
    BatchStorage* storage_ = nullptr;
    std::size_t count_ = 0;
    std::uint64_t batches_ = 0;  ///< batches sent
    std::string text_;
};

}  // namespace emutrace::trace
