# tests/fuzz/fuzz.mk -- fuzzing (issue 15).  On every build, make check
# replays tests/fuzz-regress/TARGET/* through the fuzz targets
# (tests/fuzz-replay).  With ./configure --enable-fuzz (CC=clang, libFuzzer),
# `make fuzz` builds one libFuzzer harness per target and runs each for
# FUZZ_SECONDS (default 60) on a corpus seeded from scenarios/ and tests/;
# crashes land in fuzz-out/ (copy each into tests/fuzz-regress/TARGET/).
# Full unwinding on malloc: libhdf5 and libconfig have no frame pointers, so
# the fast unwinder stops at their first frame and tests/lsan.supp's
# function names would never match.  libhdf5 sizes buffers from fields of
# the file (2^64 - 1 bytes, 4 GB for a 60 KB file): in the normal build the
# malloc fails or is never touched and H5Fopen fails cleanly ("cannot open
# as HDF5", exit 2), so under ASan a huge request returns NULL
# (allocator_may_return_null) and one malloc may reach 8 GB while the RSS
# stays capped at 2 GB.  A library built before ./configure --enable-fuzz
# (a tree bootstrapped with gcc) has no coverage counters: the harnesses
# would link it and fuzz blind (100 counters, all in the harness), so
# make fuzz refuses it.
noinst_HEADERS += tests/fuzz/targets.h
UNIT_TESTS += tests/fuzz-replay
tests_fuzz_replay_SOURCES = tests/fuzz-replay.c tests/fuzz/targets.c
EXTRA_DIST += tests/fuzz/fuzz-main.c tests/fuzz/seed.sh tests/fuzz/known tests/fuzz-regress

FUZZ_SECONDS = 60
# More libFuzzer flags, e.g. FUZZ_FLAGS='-fork=1 -ignore_crashes=1' to go on
# past a crash inside libhdf5 (tests/fuzz/known) in one child at a time.
FUZZ_FLAGS =
FUZZ_TARGETS = scenario trace h5
if FUZZ
FUZZ_LINK = $(CC) $(AM_CFLAGS) $(CFLAGS) -fsanitize=fuzzer,address,undefined
FUZZ_DEPS = $(srcdir)/tests/fuzz/fuzz-main.c $(srcdir)/tests/fuzz/targets.c libtrainsim.a
FUZZ_BUILD = mkdir -p fuzz && $(FUZZ_LINK) $(AM_CPPFLAGS) -o $@ \
	$(srcdir)/tests/fuzz/fuzz-main.c $(srcdir)/tests/fuzz/targets.c $(LDADD) $(LIBS)
fuzz/fuzz-scenario: $(FUZZ_DEPS)
	$(AM_V_CCLD)$(FUZZ_BUILD) -DFUZZ_TARGET=fuzz_scenario
fuzz/fuzz-trace: $(FUZZ_DEPS)
	$(AM_V_CCLD)$(FUZZ_BUILD) -DFUZZ_TARGET=fuzz_trace
fuzz/fuzz-h5: $(FUZZ_DEPS)
	$(AM_V_CCLD)$(FUZZ_BUILD) -DFUZZ_TARGET=fuzz_h5
fuzz: fuzz/fuzz-scenario fuzz/fuzz-trace fuzz/fuzz-h5 trainsim$(EXEEXT)
	@nm libtrainsim.a 2>/dev/null | grep -q __sanitizer_cov || { \
		echo "make fuzz: libtrainsim.a has no coverage instrumentation (objects built" \
		     "before ./configure --enable-fuzz): make clean, then make fuzz"; exit 1; }
	@st=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p fuzz-corpus/$$t fuzz-out/$$t; \
		$(SHELL) $(srcdir)/tests/fuzz/seed.sh $(srcdir) $$t fuzz-corpus/$$t || exit 1; \
		echo "== fuzz_$$t for $(FUZZ_SECONDS) s"; \
		SRCDIR=$(abs_top_srcdir) \
		ASAN_OPTIONS=fast_unwind_on_malloc=0:allocator_may_return_null=1 \
		LSAN_OPTIONS=suppressions=$(abs_top_srcdir)/tests/lsan.supp:print_suppressions=0 \
		./fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) \
			-timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=8192 \
			-max_len=65536 $(FUZZ_FLAGS) \
			-artifact_prefix=fuzz-out/$$t/ fuzz-corpus/$$t || st=1; \
	done; exit $$st
else
fuzz:
	@echo "make fuzz needs ./configure --enable-fuzz CC=clang (libFuzzer)"; exit 1
endif
.PHONY: fuzz
clean-local: clean-fuzz
clean-fuzz:
	rm -rf fuzz fuzz-corpus fuzz-out
.PHONY: clean-fuzz
