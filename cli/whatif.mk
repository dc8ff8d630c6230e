# cli/whatif.mk -- what-if studies: the tests and benchmarks of collect,
# export and plan (their sources are in cli/local.mk, the planner's search
# in models/local.mk, reading run files in sim/output.mk), sweep scripts
# and plots.
TESTS += tests/whatif-collect.sh tests/whatif-plan.sh
EXTRA_DIST += tests/whatif-collect.sh tests/whatif-plan.sh
TESTS += tests/whatif-plot.sh
EXTRA_DIST += tests/whatif-plot.sh
check_PROGRAMS += tests/whatif-fixture
tests_whatif_fixture_SOURCES = tests/whatif-fixture.c
TESTS += tests/whatif-sweep.sh
EXTRA_DIST += tests/whatif-sweep.sh
EXTRA_DIST += tests/bench/whatif-sweep-1000.sh tests/bench/plan-175b.sh doc/whatif.txt

# The 1,000-scenario sweep of the 175B case (a minute or more; never run by
# make check).
bench-sweep: trainsim
	TRAINSIM='$(abs_top_builddir)/trainsim' SRCDIR='$(abs_top_srcdir)' \
		$(SHELL) $(top_srcdir)/tests/bench/whatif-sweep-1000.sh
.PHONY: bench-sweep

# The planner on the 175B case, step and formula models (minutes).
bench-plan: trainsim
	TRAINSIM='$(abs_top_builddir)/trainsim' SRCDIR='$(abs_top_srcdir)' \
		$(SHELL) $(top_srcdir)/tests/bench/plan-175b.sh
.PHONY: bench-plan
check_PROGRAMS += tests/whatif-plan-t
TESTS += tests/whatif-plan-t
tests_whatif_plan_t_SOURCES = tests/whatif-plan-t.c
