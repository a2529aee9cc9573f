# ITM/DWT over SWO (Cortex-M3/M4): the packet protocol both ways, the SWO capture reader, the swo row.
list(APPEND source_files itm/itm_packets.cpp itm/swo_capture.cpp itm/swo_source.cpp)
