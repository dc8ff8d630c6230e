# doc/install.mk -- what `make install` puts beside the program, the man
# pages, and `make installcheck`.
#
# The scenarios (catalogs, regions, traces, model presets, validation,
# sweeps), the plots and the docs go under $(pkgdatadir) as they are laid
# out in the source tree, so the installed sweeps and plots find each other
# and the installed trainsim finds the catalogs (TRAINSIM_DATADIR, sim/path.h).
# The file list is taken from the tree itself at install time, so a new
# catalog, trace or preset is installed without editing this file; the
# same list uninstalls.  Executable files (sweeps, plot scripts) stay so.

trainsim_data_trees = scenarios plots doc README
# What is not data: build fragments, the man page generator and its output,
# editor and run leftovers.
trainsim_data_files = (cd $(srcdir) && find $(trainsim_data_trees) -type f \
	! -name '*.mk' ! -name 'mkman.sh' ! -name '*.[15]' ! -name '.*' \
	! -name '*~' ! -name '*.h5' ! -name '*.o') | LC_ALL=C sort

install-data-local:
	@$(trainsim_data_files) | while read -r f; do \
	  d='$(DESTDIR)$(pkgdatadir)'/`dirname "$$f"`; \
	  $(MKDIR_P) "$$d" || exit 1; \
	  if test -x '$(srcdir)'/"$$f"; then \
	    $(INSTALL_SCRIPT) '$(srcdir)'/"$$f" "$$d" || exit 1; \
	  else \
	    $(INSTALL_DATA) '$(srcdir)'/"$$f" "$$d" || exit 1; \
	  fi; \
	done

uninstall-local:
	@$(trainsim_data_files) | while read -r f; do \
	  rm -f '$(DESTDIR)$(pkgdatadir)'/"$$f"; \
	done
	-@test -d '$(DESTDIR)$(pkgdatadir)' && \
	  find '$(DESTDIR)$(pkgdatadir)' -depth -type d -empty -exec rmdir {} \;

# Man pages, written by the program about itself (its --help texts and its
# schema) at build time, so they cannot drift from it.
man_MANS = doc/trainsim.1 doc/trainsim-scenario.5
CLEANFILES += $(man_MANS)
EXTRA_DIST += doc/mkman.sh doc/sources.md
doc/trainsim.1: trainsim$(EXEEXT) $(srcdir)/doc/mkman.sh
	@$(MKDIR_P) doc
	$(AM_V_GEN)$(SHELL) $(srcdir)/doc/mkman.sh 1 ./trainsim$(EXEEXT) \
		'$(pkgdatadir)' '$(PACKAGE_VERSION)' >$@.tmp && mv $@.tmp $@
doc/trainsim-scenario.5: trainsim$(EXEEXT) $(srcdir)/doc/mkman.sh
	@$(MKDIR_P) doc
	$(AM_V_GEN)$(SHELL) $(srcdir)/doc/mkman.sh 5 ./trainsim$(EXEEXT) \
		'$(pkgdatadir)' '$(PACKAGE_VERSION)' >$@.tmp && mv $@.tmp $@
SHELL_TESTS += tests/man.sh
tests/man.log: $(man_MANS)

# Every source the code and data cite is in the repository.
SHELL_TESTS += tests/standalone.sh

# The installed program on an installed scenario, from an empty directory.
EXTRA_DIST += tests/installcheck.sh
installcheck-local:
	TRAINSIM='$(DESTDIR)$(bindir)/trainsim$(EXEEXT)' \
	DATADIR='$(DESTDIR)$(pkgdatadir)' MANDIR='$(DESTDIR)$(mandir)' \
	DESTDIR='$(DESTDIR)' $(SHELL) $(srcdir)/tests/installcheck.sh
