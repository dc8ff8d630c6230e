# sim/engine.mk -- errors, the event engine, random streams, forked jobs
# (replicas and the planner's helpers).
libtrainsim_a_SOURCES += sim/err.c sim/forkjobs.c
noinst_HEADERS += sim/err.h sim/ev.h sim/evkey.h sim/rng.h sim/forkjobs.h sim/grow.h
libtrainsim_a_SOURCES += sim/ev.c sim/rng.c
# The event queue: API and refill, then its tiers; evq_int.h is private to them.
libtrainsim_a_SOURCES += sim/evq.c sim/evq_bottom.c sim/evq_rung.c \
	sim/evq_block.c sim/evq_pend.c
noinst_HEADERS += sim/evq_int.h

UNIT_TESTS += tests/ev-t tests/rng-t tests/evkey-t

BENCHES += tests/bench/evq-hold-b
tests_bench_evq_hold_b_SOURCES = tests/bench/evq-hold-b.c
