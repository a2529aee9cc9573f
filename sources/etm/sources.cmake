# ETMv3.4 (Cortex-M3/M4 instruction trace): the encoder the etm writer uses. Its snapshots are read
# by OpenCSD's ETMv3 decoder (trc_pkt_lister); a source row reading captures is still to come.
list(APPEND source_files etm/etmv3_encoder.cpp)
