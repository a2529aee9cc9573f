# Trace writers: Perfetto (for the call tracer) and PFT; the pft analysis row.
list(APPEND analysis_sources writers/perfetto_writer.cpp writers/pft_writer.cpp writers/pft_analysis.cpp)
