# models/step.mk -- kernel costs, memory, Megatron/ZeRO, the step model.
libtrainsim_a_SOURCES += models/compute.c models/fp8.c models/kpower.c models/memory.c models/zero.c \
	models/parallel.c models/megatron.c models/deepspeed.c models/dualpipe.c models/step.c models/step_layer.c models/step_des.c \
	models/buckets.c models/step_memory.c models/step_sym.c models/step_report.c models/straggler.c
noinst_HEADERS += models/compute.h models/kpower.h models/memory.h models/zero.h \
	models/parallel.h models/megatron.h models/deepspeed.h models/dualpipe.h models/step.h models/step_layer.h models/straggler.h \
	models/buckets.h

UNIT_TESTS += tests/step-mem-t tests/step-compute-t tests/step-fp8-t tests/step-scenario-t \
	tests/step-pipe-t tests/step-sim-t tests/straggler-t tests/step-tpasync-t tests/step-ds-t tests/step-dualpipe-t tests/step-moe-t tests/step-dispatch-t \
	tests/kpower-t tests/buckets-t
EXTRA_DIST += tests/bench/step-175b.cfg tests/bench/step-moe.cfg

# `make validate`: calibration (Table 1, busbw, Patterson) and independent
# validation rows (scenarios/validation/independent.tsv) in two tables;
# make check asserts Table 1's targets and that every runnable row runs.
check_PROGRAMS += tests/bench/validate-b
tests_bench_validate_b_SOURCES = tests/bench/validate.c tests/bench/validate-layer.c \
	tests/bench/validate-layer.h tests/bench/validate-memory.c \
	tests/bench/validate-memory.h tests/bench/vtsv.h
SHELL_TESTS += tests/step-validate.sh
validate: tests/bench/validate-b
	./tests/bench/validate-b $(srcdir)/scenarios/validation
.PHONY: validate

# One 175B iteration on 1024 and 16,384 GPUs (make bench).
BENCHES += tests/bench/step-b
tests_bench_step_b_SOURCES = tests/bench/step-b.c
# The kernel laws against the H200 micro-benchmarks (issue 12).
UNIT_TESTS += tests/kernels-t
UNIT_TESTS += tests/attn-impl-t
EXTRA_DIST += tests/bench/measure.py
SHELL_TESTS += tests/stack-band.sh
# The host's launch time and the eager AMP loop's passes (issue 12).
libtrainsim_a_SOURCES += models/host.c models/eager.c
noinst_HEADERS += models/host.h models/eager.h
UNIT_TESTS += tests/host-eager-t
UNIT_TESTS += tests/cgraph-t
