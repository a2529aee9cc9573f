# The on-target tracer's RAM ring (firmware/ontarget): the ring decoder, the ELF hook patcher that
# puts the tracer into a build, and the ring row.
list(APPEND source_files ring/ring_trace.cpp ring/hook_patcher.cpp ring/ring_source.cpp)
