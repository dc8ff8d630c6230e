#!/bin/sh
# seed.sh SRCDIR TARGET DIR -- copy the seed corpus of a fuzz target into
# DIR: the shipped scenarios and the bad ones of tests/ (scenario), the
# traces (trace), a run file written by trainsim and the bad run files of
# tests/bad (h5), and the target's regression files.
src=$1 target=$2 dir=$3
case $target in
scenario) set -- "$src"/scenarios/*.cfg "$src"/tests/bad/*.cfg "$src"/tests/bad/types/*.cfg \
	"$src"/tests/*.cfg "$src"/tests/cluster/*.cfg ;;
trace) set -- "$src"/scenarios/traces/*.csv "$src"/scenarios/traces/*.json \
	"$src"/tests/acct/*.csv "$src"/tests/bad/*.json "$src"/tests/bad/*.csv \
	"$src"/tests/bad/tr/*.* "$src"/tests/cluster/*.swf "$src"/tests/cluster/*.csv \
	"$src"/tests/bad/cluster/*.swf "$src"/tests/bad/cluster/*.csv ;;
h5) ./trainsim -q -o "$dir/run.h5" "$src/scenarios/tiny.cfg" || exit 1
	set -- "$src"/tests/bad/*.h5 "$src"/tests/h5/*.h5 ;;
esac
for f in "$@" "$src"/tests/fuzz-regress/"$target"/*; do
	[ -f "$f" ] && cp "$f" "$dir/"
done
exit 0
