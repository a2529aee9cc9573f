# ETMv3.4 (Cortex-M3/M4 instruction trace): the encoder the etm writer uses. Its snapshots are read
# by OpenCSD's ETMv3 decoder (trc_pkt_lister, and the OpenCSD snapshot reader behind the etm row).
list(APPEND source_files etm/etmv3_encoder.cpp etm/etm_source.cpp)
