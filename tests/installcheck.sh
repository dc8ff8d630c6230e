#!/bin/sh
# installcheck.sh -- `make installcheck`: the installed trainsim, from an
# empty directory, on installed scenarios only.
#   TRAINSIM  the installed program       DATADIR  its $(pkgdatadir)
#   MANDIR    the installed $(mandir)      DESTDIR  as make install had it
# With a DESTDIR the program's built-in data directory is not where the
# files are yet, so TRAINSIM_PATH points there; without one the program
# must find its data by itself.  Prints TAP; exits 1 on any failure.
set -u
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
i=0 failed=0
ok() { i=$((i + 1)); if [ "$1" -eq 0 ]; then echo "ok $i - $2"; else echo "not ok $i - $2"; failed=1; fi; }
if [ -n "${DESTDIR:-}" ]; then TRAINSIM_PATH=$DATADIR/scenarios; export TRAINSIM_PATH
else unset TRAINSIM_PATH; fi

[ -z "$(ls -A)" ]; ok $? "an empty directory ($tmp)"
"$TRAINSIM" -q "$DATADIR/scenarios/175b.cfg" 2>err.txt
ok $? "$TRAINSIM on the installed scenarios/175b.cfg"
[ -s 175b.h5 ]; ok $? "it wrote 175b.h5 here"
sed 's/^/# /' err.txt

# A scenario of the user's own: its @include is found in the installed
# scenarios (then tiny.cfg's own includes in tiny.cfg's directory).
printf '@include "tiny.cfg"\n' >mine.cfg
"$TRAINSIM" -q -o mine.h5 mine.cfg 2>err.txt
ok $? "a scenario here that @includes tiny.cfg from the installed data"
sed 's/^/# /' err.txt
printf '@include "catalog/none.cfg"\n' >bad.cfg
"$TRAINSIM" -q bad.cfg 2>err.txt
[ $? -eq 2 ] && grep -q '^bad\.cfg:1: @include "catalog/none\.cfg": not found in \./, ' err.txt
ok $? "a missing @include: exit 2, FILE:LINE and the places looked in"
sed 's/^/# /' err.txt
"$TRAINSIM" list gpus >gpus.txt 2>err.txt && grep -q '^h100_sxm ' gpus.txt
ok $? "trainsim list gpus finds the installed catalog"
for f in catalog/gpus.cfg catalog/links.cfg catalog/prices.cfg catalog/storage.cfg \
	regions/regions.cfg traces/README sweeps/lib.sh validation/README; do
	[ -f "$DATADIR/scenarios/$f" ] || { echo "# missing $DATADIR/scenarios/$f"; false; } || break
done
ok $? "catalogs, regions, traces, sweeps and validation installed"
[ -x "$DATADIR/scenarios/sweeps/checkpoint-interval.sh" ] && [ -x "$DATADIR/plots/plot" ] &&
	[ -f "$DATADIR/doc/whatif.txt" ]
ok $? "sweeps and plots installed executable, doc/whatif.txt installed"
# An installed sweep finds the installed scenario, program and plots.
if command -v parallel >/dev/null 2>&1; then
	noplot=--no-plot; command -v gnuplot >/dev/null 2>&1 && noplot=
	TRAINSIM=$TRAINSIM sh "$DATADIR/scenarios/sweeps/checkpoint-interval.sh" --small -j 2 \
		$noplot -o sweep >sweep.txt 2>&1 &&
		[ "$(grep -c -v '^#' sweep/results.tsv 2>/dev/null)" -eq 7 ] &&
		{ [ -n "$noplot" ] || [ -s sweep/plots/sweep-interval.png ]; }
	ok $? "the installed checkpoint-interval sweep (--small): 6 runs collected${noplot:+ (no gnuplot: not drawn)}"
	sed 's/^/# /' sweep.txt | tail -3
else
	echo "ok $((i = i + 1)) - installed sweep # SKIP GNU parallel not installed"
fi
if command -v man >/dev/null 2>&1; then
	MANPAGER=cat man -l "$MANDIR/man1/trainsim.1" 2>/dev/null | grep -q 'TRAINSIM_PATH' &&
	MANPAGER=cat man -l "$MANDIR/man5/trainsim-scenario.5" 2>/dev/null | grep -q 'model\.layers'
	ok $? "man -l shows trainsim(1) and trainsim-scenario(5)"
else
	echo "ok $((i = i + 1)) - man -l # SKIP man not installed"
fi
echo "1..$i"
exit $failed
