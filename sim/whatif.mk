# whatif.mk -- what-if studies: collect/export of run files, the planner,
# sweep scripts, plots, and their tests.
libtrainsim_a_SOURCES += sim/h5in.c sim/collect.c sim/export.c models/plan.c \
	models/plan_bound.c models/plan_search.c models/plan_warm.c
noinst_HEADERS += sim/h5in.h models/plan.h models/plan_int.h
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
