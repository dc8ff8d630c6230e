#!/bin/sh
# doc/examples/read-run.py, the h5py + pandas example, on a run with
# failures: its figures must be the file's own (--json's duration_s and
# tokens, export's count of events per kind, export's samples), and it must
# name the run's states and event kinds (HDF5 enums in layout 2).  Skipped
# when no python3 imports h5py and pandas (Debian: python3-h5py,
# python3-pandas).
cd "$SRCDIR" || exit 1
. tests/tap.sh
. tests/outputs.sh

py=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
	if "$p" -c 'import h5py, pandas' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP no python3 with h5py and pandas (apt-get install python3-h5py python3-pandas)"
	exit 0
fi
plan 6

"$TRAINSIM" -q --json --seed 5 -s failures.per_node_per_1000_days=20000 \
	-s failures.spares=1000 -o "$tmp/r.h5" scenarios/tiny.cfg >"$tmp/r.json"
ok $? "tiny.cfg with failures runs"
"$py" doc/examples/read-run.py "$tmp/r.h5" >"$tmp/out" 2>"$tmp/err"
ok $? "read-run.py runs ($(head -c 200 "$tmp/err"))"
grep -qx "  duration_s $(json "$tmp/r.json" duration_s) s" "$tmp/out" &&
	grep -qx "  tokens $(json "$tmp/r.json" tokens) tokens" "$tmp/out"
ok $? "summary: duration_s and tokens as --json prints them, with units"
n=$("$TRAINSIM" export "$tmp/r.h5" | grep -vc '^#')
grep -qx "series: $n samples of [0-9]* columns" "$tmp/out"
ok $? "series: as many samples as export prints ($n)"
"$TRAINSIM" export --events "$tmp/r.h5" | awk 'NR > 1 { n[$2]++ }
	END { for (k in n) print "  " k, n[k] }' | sort >"$tmp/want"
sed -n '/^events by kind:/,$p' "$tmp/out" | sed -n 's/^\(  [a-z_]* [0-9]*\)  (.*/\1/p' |
	sort >"$tmp/got"
[ -s "$tmp/want" ] && grep -q failure_node "$tmp/want" && cmp -s "$tmp/want" "$tmp/got"
ok $? "events by kind: export's counts, failure_node among them"
grep -q '^  state share: training [0-9.]*' "$tmp/out" &&
	grep -q 'failure_node [0-9]*  (a node failure took a node; who = node' "$tmp/out"
ok $? "state and event kinds by name, with the file's meaning of who and value"
