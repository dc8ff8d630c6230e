# cli/local.mk -- the command line: main, the subcommands and the progress
# line.  Only the trainsim program links them; tests link libtrainsim.a.
trainsim_SOURCES += cli/trainsim.c cli/progress.c cli/human.c cli/cmd_collective.c \
	cli/collect.c cli/export.c cli/plan.c cli/cluster.c cli/list.c
noinst_HEADERS += cli/progress.h cli/human.h cli/cmd.h
TESTS += tests/list.sh
EXTRA_DIST += tests/list.sh
