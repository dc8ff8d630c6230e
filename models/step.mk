# models/step.mk -- GPU catalog, compute, memory, Megatron/ZeRO, the step model.
libtrainsim_a_SOURCES += models/compute.c models/memory.c models/zero.c \
	models/parallel.c
noinst_HEADERS += models/compute.h models/memory.h models/zero.h \
	models/parallel.h
libtrainsim_a_SOURCES += models/megatron.c models/step.c models/step_des.c \
	models/step_memory.c models/step_sym.c models/step_report.c
noinst_HEADERS += models/megatron.h models/step.h
check_PROGRAMS += tests/step-mem-t
TESTS += tests/step-mem-t
tests_step_mem_t_SOURCES = tests/step-mem-t.c
check_PROGRAMS += tests/step-compute-t
TESTS += tests/step-compute-t
tests_step_compute_t_SOURCES = tests/step-compute-t.c
# make validate: Megatron-LM Table 1, published vs predicted.
check_PROGRAMS += tests/bench/step-validate
TESTS += tests/step-validate.sh
EXTRA_DIST += tests/step-validate.sh
tests_bench_step_validate_SOURCES = tests/bench/step-validate.c
validate: tests/bench/step-validate
	./tests/bench/step-validate $(srcdir)/scenarios/validation
.PHONY: validate
EXTRA_PROGRAMS += tests/bench/step-b
BENCHES += tests/bench/step-b
tests_bench_step_b_SOURCES = tests/bench/step-b.c
check_PROGRAMS += tests/step-scenario-t
TESTS += tests/step-scenario-t
tests_step_scenario_t_SOURCES = tests/step-scenario-t.c
check_PROGRAMS += tests/step-pipe-t
TESTS += tests/step-pipe-t
tests_step_pipe_t_SOURCES = tests/step-pipe-t.c
check_PROGRAMS += tests/step-sim-t
TESTS += tests/step-sim-t
tests_step_sim_t_SOURCES = tests/step-sim-t.c
EXTRA_DIST += tests/bench/step-175b.cfg
