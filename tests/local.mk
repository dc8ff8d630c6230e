# tests/local.mk -- end-to-end tests of the trainsim command.
EXTRA_DIST += tests/tap.h
