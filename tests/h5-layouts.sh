#!/bin/sh
# `trainsim export` and `collect` read run files of both layouts: layout 1
# (tests/h5/layout1.h5, written by trainsim before layout_version existed:
# fixed-length strings, state a float code, event kinds 24-byte strings)
# and layout 2 (enums, variable-length strings).  What they print is checked
# against h5dump's own reading of the same file, and a file of a later
# layout is refused with a message that says so.
cd "$SRCDIR" || exit 1
. tests/tap.sh
. tests/outputs.sh
plan 7

old=tests/h5/layout1.h5
"$TRAINSIM" -q --seed 5 -s failures.per_node_per_1000_days=20000 -s failures.spares=1000 \
	-o "$tmp/new.h5" scenarios/tiny.cfg
ok $? "a layout 2 run"
[ "$(h5attr "$tmp/new.h5" /layout_version)" = 2 ] && [ -z "$(h5attr "$old" /layout_version)" ]
ok $? "layout_version 2 in the new file, absent from the old"
bad=0
for f in "$old" "$tmp/new.h5"; do
	"$TRAINSIM" export --events "$f" | awk 'NR > 1 { print $1, $2 }' >"$tmp/ex"
	events "$f" | awk '{ printf "%.17g %s\n", $1, $2 }' >"$tmp/dump"
	[ -s "$tmp/ex" ] && grep -q failure_node "$tmp/ex" && cmp -s "$tmp/ex" "$tmp/dump" ||
		bad=1
done
ok $bad "export --events: each file's kinds as h5dump names them (string or enum)"
bad=0
for f in "$old" "$tmp/new.h5"; do
	"$TRAINSIM" export "$f" state | awk 'NR > 1 { print $2 }' >"$tmp/ex"
	h5dump -w 0 -d /timeseries/state "$f" | sed -n '/^   DATA {/,/^   }/p' | tr -d ' ' |
		tr ',' '\n' | grep -v '^$' | sed 's/^(0)://; /[{}]/d' >"$tmp/dump"
	[ -s "$tmp/ex" ] && [ "$(wc -l <"$tmp/ex")" = "$(wc -l <"$tmp/dump")" ] || bad=1
done
ok $bad "export state: one code a sample in both layouts"
# layout 2 names the codes: code i of state is run_state_names[i].
paste "$tmp/ex" "$tmp/dump" | awk '
	BEGIN { split("training redo checkpoint detecting waiting restarting done", n, " ") }
	n[$1 + 1] != $2 { bad = 1 } END { exit bad }'
ok $? "layout 2: export's state codes are the enum's names (0 training .. 6 done)"
"$TRAINSIM" collect "$old" "$tmp/new.h5" >"$tmp/t.tsv"
ok $? "collect reads both layouts in one table"
py=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
	"$p" -c 'import h5py' 2>/dev/null && { py=$p; break; }
done
if [ -n "$py" ]; then
	cp "$tmp/new.h5" "$tmp/v3.h5"
	"$py" -c 'import h5py, numpy, sys
with h5py.File(sys.argv[1], "r+") as f: f.attrs["layout_version"] = numpy.uint64(3)' "$tmp/v3.h5"
	"$TRAINSIM" export --summary "$tmp/v3.h5" >/dev/null 2>"$tmp/err"
	[ $? = 2 ] && grep -q 'layout_version 3 is newer than this trainsim reads' "$tmp/err"
	ok $? "a layout 3 file is refused, exit 2: $(cat "$tmp/err")"
else
	skip "no python3 with h5py to write a layout 3 file"
fi
