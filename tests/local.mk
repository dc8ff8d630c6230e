# tests/local.mk -- end-to-end tests of the trainsim command.
EXTRA_DIST += tests/tap.h
TESTS += tests/bad-input.sh
EXTRA_DIST += tests/bad-input.sh tests/bad
check_PROGRAMS += tests/run-model-t
TESTS += tests/run-model-t
tests_run_model_t_SOURCES = tests/run-model-t.c
TESTS += tests/e2e-run.sh
EXTRA_DIST += tests/e2e-run.sh
TESTS += tests/e2e-collective.sh
EXTRA_DIST += tests/e2e-collective.sh
