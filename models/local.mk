# models/local.mk -- the run model and its accounting.
libtrainsim_a_SOURCES += models/gpu.c models/node.c models/kernels.c models/kernels_tsv.c models/stack.c models/attn_impl.c \
	models/transformer.c models/dispatch.c models/cgraph.c models/layout.c models/pool.c models/pace.c models/ramp.c
noinst_HEADERS += models/gpu.h models/node.h models/kernels.h models/stack.h models/attn_impl.h models/transformer.h models/dispatch.h models/cgraph.h \
	models/layout.h models/pool.h models/pace.h models/ramp.h
libtrainsim_a_SOURCES += models/acct.c models/power.c models/cost.c models/carbon.c \
	models/checkpoint.c models/failure.c models/run.c \
	models/run_model.c models/run_ckpt.c models/run_fail.c models/run_spot.c models/run_out.c \
	models/replay.c models/replay_sky.c models/replay_bamboo.c \
	models/replay_fail.c models/spot.c models/gc.c models/evaluation.c models/replicas.c
noinst_HEADERS += models/acct.h models/power.h models/cost.h models/carbon.h \
	models/checkpoint.h models/failure.h models/run.h models/run_int.h \
	models/replay.h models/replay_int.h models/spot.h models/gc.h models/evaluation.h models/replicas.h
# Accounting's parts (issue 6).
libtrainsim_a_SOURCES += models/trace.c models/trace_csv.c models/trace_aws.c \
	models/storage.c models/budget.c models/telemetry.c models/region.c
noinst_HEADERS += models/trace.h models/trace_int.h models/storage.h models/budget.h \
	models/telemetry.h models/region.h
UNIT_TESTS += tests/acct-energy-t
UNIT_TESTS += tests/acct-network-t
EXTRA_DIST += tests/acct-load.h tests/acct
UNIT_TESTS += tests/acct-billing-t
UNIT_TESTS += tests/acct-budget-t
UNIT_TESTS += tests/acct-patterson-t
UNIT_TESTS += tests/acct-trace-t
SHELL_TESTS += tests/acct-e2e.sh
UNIT_TESTS += tests/node-t
UNIT_TESTS += tests/acct-tco-t
# The planner's search (plan.h; the command is cli/plan.c).
libtrainsim_a_SOURCES += models/plan.c models/plan_bound.c models/plan_search.c models/plan_warm.c
noinst_HEADERS += models/plan.h models/plan_int.h
# Shared clusters (issue 17): trainsim cluster's models.
libtrainsim_a_SOURCES += models/cjob.c models/swf.c models/jobgen.c models/autoscale.c \
	models/fleet.c models/sched.c models/cluster.c models/cfabric.c
noinst_HEADERS += models/cjob.h models/swf.h models/jobgen.h models/autoscale.h \
	models/fleet.h models/sched.h models/cluster.h models/cfabric.h
UNIT_TESTS += tests/cluster-autoscale-t
SHELL_TESTS += tests/cluster-sched.sh tests/cluster-out.sh tests/cluster-fabric.sh
EXTRA_DIST += tests/cluster doc/cluster.txt
# The cluster benchmark: 100,000 jobs, 100,000 GPUs, 90 days (seconds;
# never run by make check).
EXTRA_DIST += tests/bench/cluster-100k.sh tests/bench/cluster-100k.cfg
bench-cluster: trainsim
	TRAINSIM='$(abs_top_builddir)/trainsim' SRCDIR='$(abs_top_srcdir)' \
		$(SHELL) $(top_srcdir)/tests/bench/cluster-100k.sh
.PHONY: bench-cluster
# Model shapes and presets (issue 13).
UNIT_TESTS += tests/models-params-t
UNIT_TESTS += tests/models-shape-t
SHELL_TESTS += tests/models-e2e.sh
EXTRA_DIST += tests/toy-gpu.h tests/h200-power.h
