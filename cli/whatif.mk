# cli/whatif.mk -- what-if studies: the tests and benchmarks of collect,
# export and plan (their sources are in cli/local.mk, the planner's search
# in models/local.mk, reading run files in sim/output.mk), sweep scripts
# and plots.
SHELL_TESTS += tests/whatif-collect.sh tests/whatif-plan.sh
SHELL_TESTS += tests/whatif-plot.sh
check_PROGRAMS += tests/whatif-fixture
tests_whatif_fixture_SOURCES = tests/whatif-fixture.c
SHELL_TESTS += tests/whatif-sweep.sh
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
UNIT_TESTS += tests/whatif-plan-t
