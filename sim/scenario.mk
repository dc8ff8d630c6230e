# sim/scenario.mk -- scenario schema, loading, overrides.
noinst_HEADERS += sim/cfg.h
