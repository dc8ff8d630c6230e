# sim/files.mk -- reading the user's text inputs (traces): whole files, CSV
# rows, JSON documents through jansson.
libtrainsim_a_SOURCES += sim/textfile.c sim/csv.c sim/jsonfile.c sim/infile.c
noinst_HEADERS += sim/textfile.h sim/csv.h sim/jsonfile.h sim/infile.h
UNIT_TESTS += tests/files-t
