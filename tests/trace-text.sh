#!/bin/sh
# Text as spreadsheets and Windows write it is read as the same data: a
# UTF-8 byte-order mark and CRLF line ends in a trace, a BOM before a
# scenario.  Each run must give the figures of the plain file exactly (the
# same bytes after the reader drops the BOM and the CRs), so the expected
# numbers are the plain file's own.
. "$SRCDIR/tests/tap.sh"
plan 4
json() { "$TRAINSIM" -q --json -o "$tmp/run.h5" "$@" && rm -f "$tmp/run.h5"; }
carbon() { awk -v RS=',' -F': ' '/"carbon_kg"/ { print $2 }'; }

{ printf '\357\273\277'; sed 's/$/\r/' tests/acct/grid-4h.csv; } >"$tmp/bom-crlf.csv"
want=$(json -s carbon.grid_trace=grid-4h.csv tests/acct/cov.cfg | carbon)
got=$(json -s carbon.grid_trace="$tmp/bom-crlf.csv" tests/acct/cov.cfg | carbon)
[ -n "$want" ] && [ "$got" = "$want" ]
ok $? "grid trace with a BOM and CRLF: carbon_kg $got, the plain file's $want"

# A jobs CSV and an SWF trace with a BOM: the same jobs.
{ printf '\357\273\277'; sed 's/$/\r/' tests/cluster/trace.csv; } >"$tmp/trace.csv"
a=$("$TRAINSIM" cluster -q --json -o "$tmp/c1.h5" -s workload.trace=trace.csv tests/cluster/csv.cfg)
b=$("$TRAINSIM" cluster -q --json -o "$tmp/c2.h5" -s workload.trace="$tmp/trace.csv" tests/cluster/csv.cfg)
[ -n "$a" ] && [ "$a" = "$b" ]; ok $? "job CSV with a BOM and CRLF: the same summary"

# A scenario with a BOM: the same run, and its errors keep their lines.
{ printf '\357\273\277'; cat scenarios/tiny.cfg; } >"$tmp/bom.cfg"
sed -i "s|@include \"catalog/|@include \"$SRCDIR/scenarios/catalog/|" "$tmp/bom.cfg"
a=$(json scenarios/tiny.cfg)
b=$(json "$tmp/bom.cfg")
[ -n "$a" ] && [ "$a" = "$b" ]; ok $? "a scenario with a BOM runs as the plain one"
printf '\357\273\277model = {\n  layers = -1;\n};\n' >"$tmp/bad.cfg"
"$TRAINSIM" --check "$tmp/bad.cfg" 2>&1 >/dev/null | grep -q "bad.cfg:2: model.layers: -1 is out of range"
ok $? "a BOM does not move the lines (layers on line 2)"
