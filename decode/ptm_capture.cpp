#include "decode/ptm_capture.h"

namespace emutrace::decode {

SourceTotals PtmCapture::deliver() {
    summary_ = decode_snapshot(dir_, only_id_, sinks_);
    SourceTotals t;
    t.source = dir_;
    t.instructions = summary_.instructions;
    t.cycles = summary_.cycles ? summary_.cycles : summary_.instructions;
    t.complete = summary_.lost_bytes == 0;
    return t;
}

}  // namespace emutrace::decode
