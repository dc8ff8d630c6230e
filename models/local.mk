# models/local.mk -- the run model and its accounting.
libtrainsim_a_SOURCES += models/gpu.c models/transformer.c models/layout.c
noinst_HEADERS += models/gpu.h models/transformer.h models/layout.h
