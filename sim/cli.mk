# sim/cli.mk -- the command line and its progress line.
libtrainsim_a_SOURCES += sim/progress.c
noinst_HEADERS += sim/progress.h sim/cmd.h
trainsim_SOURCES += sim/cmd_collective.c
