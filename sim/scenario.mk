# sim/scenario.mk -- scenario schema, loading, overrides.
noinst_HEADERS += sim/cfg.h
libtrainsim_a_SOURCES += sim/cfg.c
check_PROGRAMS += tests/cfg-t
TESTS += tests/cfg-t
tests_cfg_t_SOURCES = tests/cfg-t.c
