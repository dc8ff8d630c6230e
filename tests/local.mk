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
SHELL_TESTS += tests/bad-input.sh tests/output-path.sh tests/sweep-tmp.sh tests/trace-text.sh
EXTRA_DIST += tests/bad
UNIT_TESTS += tests/run-model-t tests/ramp-t
SHELL_TESTS += tests/e2e-run.sh
SHELL_TESTS += tests/run-spares.sh
SHELL_TESTS += tests/plan-scenarios.sh
SHELL_TESTS += tests/ckpt-interval.sh
SHELL_TESTS += tests/eval.sh
SHELL_TESTS += tests/run-elastic.sh
SHELL_TESTS += tests/settings-live.sh
SHELL_TESTS += tests/e2e-collective.sh
UNIT_TESTS += tests/disrupt-t
UNIT_TESTS += tests/ckpt-daly-t
UNIT_TESTS += tests/ckpt-cost-t
SHELL_TESTS += tests/spot-replay.sh
SHELL_TESTS += tests/replicas.sh
BENCHES += tests/bench/disrupt-b
tests_bench_disrupt_b_SOURCES = tests/bench/disrupt-b.c
SHELL_TESTS += tests/scenarios-disrupt.sh
EXTRA_DIST += tests/traces tests/bench/output-digests.sh
EXTRA_DIST += tests/formula-run.h
SHELL_TESTS += tests/layering.sh
SHELL_TESTS += tests/example-h5py.sh
EXTRA_DIST += doc/examples/read-run.py
SHELL_TESTS += tests/h5-layouts.sh
EXTRA_DIST += tests/h5
SHELL_TESTS += tests/human-summary.sh
SHELL_TESTS += tests/slurm.sh
