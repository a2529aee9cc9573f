# Trace writers: Perfetto (for the call tracer), PFT and ETMv3; the pft and etm analysis rows.
list(APPEND analysis_sources writers/perfetto_writer.cpp writers/mmio_log.cpp writers/pft_writer.cpp writers/pft_analysis.cpp writers/etm_writer.cpp writers/etm_analysis.cpp
     writers/trace_outputs.cpp)
