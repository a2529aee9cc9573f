# PTM/PFT (Cortex-A/R program flow trace): the OpenCSD snapshot reader and decoder, the PFT
# encoder and CoreSight formatter the pft writer uses, the snapshot writer, and the ptm row.
list(APPEND source_files ptm/capture_decoder.cpp ptm/ptm_capture.cpp ptm/pft_encoder.cpp ptm/coresight_formatter.cpp ptm/snapshot_writer.cpp
     ptm/ptm_source.cpp)
list(APPEND source_libraries emutrace_dep::opencsd_c_api)
