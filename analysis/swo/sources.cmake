# The SWO writer (ITM/DWT packets from the run, at the TPIU's rate) and the swo row.
list(APPEND analysis_sources swo/swo_writer.cpp swo/swo_analysis.cpp)
