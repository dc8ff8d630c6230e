# sim/scenario.mk -- scenario schema, loading, overrides.
noinst_HEADERS += sim/cfg.h sim/cfg_int.h sim/path.h
libtrainsim_a_SOURCES += sim/cfg.c sim/cfg_where.c sim/cfg_value.c \
	sim/cfg_override.c sim/cfg_bigint.c sim/cfg_check.c sim/cfg_rename.c sim/cfg_include.c \
	sim/scenario.c sim/path.c
UNIT_TESTS += tests/cfg-t
UNIT_TESTS += tests/include-t
