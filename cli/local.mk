# cli/local.mk -- the command line: main, the subcommands and the progress
# line.  Only the trainsim program links them; tests link libtrainsim.a.
trainsim_SOURCES += cli/trainsim.c cli/progress.c cli/human.c cli/cmd_collective.c \
	cli/collect.c cli/export.c cli/plan.c cli/cluster.c cli/args.c cli/list.c
noinst_HEADERS += cli/progress.h cli/human.h cli/cmd.h cli/args.h
SHELL_TESTS += tests/list.sh
