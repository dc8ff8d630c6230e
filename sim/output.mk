# sim/output.mk -- the report: HDF5 output, JSON and human summaries.
noinst_HEADERS += sim/report.h
