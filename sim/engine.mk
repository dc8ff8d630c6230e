# sim/engine.mk -- errors, the event engine, random streams.
libtrainsim_a_SOURCES += sim/err.c
noinst_HEADERS += sim/err.h sim/ev.h sim/rng.h
