# models/local.mk -- the run model and its accounting.
libtrainsim_a_SOURCES += models/gpu.c models/transformer.c models/layout.c models/pool.c
noinst_HEADERS += models/gpu.h models/transformer.h models/layout.h models/pool.h
libtrainsim_a_SOURCES += models/acct.c models/power.c models/cost.c models/carbon.c \
	models/checkpoint.c models/failure.c models/run.c
noinst_HEADERS += models/acct.h models/power.h models/cost.h models/carbon.h \
	models/checkpoint.h models/failure.h models/run.h
