# tests/local.mk -- end-to-end tests of the trainsim command.
EXTRA_DIST += tests/tap.h tests/tap.sh tests/outputs.sh tests/fitted.tsv tests/bench/bench.h \
	tests/step-load.h
# make pin: after a refit, write the fitted figures the tests now compute into
# tests/fitted.tsv (the one table of pinned results); read the diff, commit.
pin: tests/bench/validate-b
	rm -f tests/fitted.new
	TAP_PIN_OUT='$(abs_top_builddir)/tests/fitted.new' SRCDIR='$(abs_top_srcdir)' \
	  BUILDDIR='$(abs_top_builddir)' $(SHELL) $(srcdir)/tests/step-validate.sh >/dev/null
	awk -F'\t' -v OFS='\t' 'NR == FNR { v[$$1] = $$2; next } \
	  !/^#/ && ($$1 in v) { $$2 = v[$$1] } { print }' \
	  tests/fitted.new $(srcdir)/tests/fitted.tsv >tests/fitted.tmp
	mv tests/fitted.tmp $(srcdir)/tests/fitted.tsv
	rm -f tests/fitted.new
.PHONY: pin
TESTS += tests/bad-input.sh
EXTRA_DIST += tests/bad-input.sh tests/bad
check_PROGRAMS += tests/run-model-t
TESTS += tests/run-model-t
tests_run_model_t_SOURCES = tests/run-model-t.c
TESTS += tests/e2e-run.sh
EXTRA_DIST += tests/e2e-run.sh
TESTS += tests/e2e-collective.sh
EXTRA_DIST += tests/e2e-collective.sh
check_PROGRAMS += tests/disrupt-t
TESTS += tests/disrupt-t
tests_disrupt_t_SOURCES = tests/disrupt-t.c
TESTS += tests/spot-replay.sh
EXTRA_DIST += tests/spot-replay.sh
TESTS += tests/replicas.sh
EXTRA_DIST += tests/replicas.sh
EXTRA_PROGRAMS += tests/bench/disrupt-b
BENCHES += tests/bench/disrupt-b
tests_bench_disrupt_b_SOURCES = tests/bench/disrupt-b.c
TESTS += tests/scenarios-disrupt.sh
EXTRA_DIST += tests/scenarios-disrupt.sh
EXTRA_DIST += tests/traces
EXTRA_DIST += tests/formula-run.h
TESTS += tests/layering.sh
EXTRA_DIST += tests/layering.sh
TESTS += tests/example-h5py.sh
EXTRA_DIST += tests/example-h5py.sh doc/examples/read-run.py
TESTS += tests/h5-layouts.sh
EXTRA_DIST += tests/h5-layouts.sh tests/h5
TESTS += tests/human-summary.sh
EXTRA_DIST += tests/human-summary.sh
TESTS += tests/slurm.sh
EXTRA_DIST += tests/slurm.sh
