# sim/output.mk -- the report: HDF5 output and reading it back (h5in.c),
# JSON and human summaries.
noinst_HEADERS += sim/report.h
libtrainsim_a_SOURCES += sim/report.c sim/h5out.c sim/h5in.c sim/outpath.c
noinst_HEADERS += sim/h5out.h sim/h5in.h sim/outpath.h
UNIT_TESTS += tests/report-t
BENCHES += tests/bench/report-b
tests_bench_report_b_SOURCES = tests/bench/report-b.c
