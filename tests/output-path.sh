#!/bin/sh
# -o never replaces what it must not (issue 15): every bad output path is
# refused with exit 2 before any simulation and leaves the path as it was;
# SIGINT and SIGTERM remove the temporary file and exit 128 + N (130, 143:
# the shell's convention); a rerun removes a stale temporary file of its
# own target that a kill -9 left.
cd "$SRCDIR" || exit 1
. tests/tap.sh
plan 26

# refused ARGS... -- PATTERN NAME: exit 2, stderr matches, no .h5 appeared
refused() {
	pattern=$1 name=$2
	shift 2
	"$TRAINSIM" -q "$@" >/dev/null 2>"$tmp/err"
	st=$?
	[ "$st" -eq 2 ]
	ok $? "$name: exit 2" || diag "exit $st: $(cat "$tmp/err")"
	grep -E -q -e "$pattern" "$tmp/err"
	ok $? "$name: message" || diag "stderr lacks /$pattern/: $(cat "$tmp/err")"
}

refused "^-o '': empty" "-o ''" -o '' scenarios/tiny.cfg
mkdir "$tmp/dir"
refused "^-o $tmp/dir/: a directory" "-o DIR/" -o "$tmp/dir/" scenarios/tiny.cfg
refused "^-o $tmp/dir: a directory" "-o DIR" -o "$tmp/dir" scenarios/tiny.cfg
mkfifo "$tmp/fifo"
refused "not a regular file" "-o FIFO" -o "$tmp/fifo" scenarios/tiny.cfg
[ -p "$tmp/fifo" ]; ok $? "the FIFO is still a FIFO"
ln -s "$tmp/elsewhere.h5" "$tmp/link.h5"
refused "a symbolic link" "-o SYMLINK" -o "$tmp/link.h5" scenarios/tiny.cfg
refused "directory $tmp/none: No such file" "-o NODIR/x.h5" -o "$tmp/none/x.h5" scenarios/tiny.cfg

# The scenario, an @include'd file and a trace are inputs, whatever the spelling.
cp scenarios/tiny.cfg "$tmp/dir/self.cfg"
cp -R scenarios/catalog "$tmp/dir/"
cp "$tmp/dir/self.cfg" "$tmp/self.before"
refused "is an input" "-o SCENARIO" -o "$tmp/dir/../dir/self.cfg" "$tmp/dir/self.cfg"
cmp -s "$tmp/dir/self.cfg" "$tmp/self.before"; ok $? "the scenario is unchanged"
printf 'region = "";\n' >"$tmp/dir/inc.cfg"
printf '@include "self.cfg"\n@include "inc.cfg"\n' >"$tmp/dir/main.cfg"
refused "is an input \\($tmp/dir/inc.cfg\\)" "-o @INCLUDE" -o "$tmp/dir/inc.cfg" "$tmp/dir/main.cfg"
cp tests/acct/grid-4h.csv "$tmp/dir/grid.csv"
refused "is an input" "-o TRACE" -o "$tmp/dir/grid.csv" -s carbon.grid_trace=grid.csv "$tmp/dir/self.cfg"

# A stale temporary file of the target goes; one of another target stays.
touch -d '2 hours ago' "$tmp/.out.h5.tmp.AbC123" "$tmp/.other.h5.tmp.AbC123"
"$TRAINSIM" -q -o "$tmp/out.h5" scenarios/tiny.cfg
ok $? "a run beside stale temporary files"
[ ! -e "$tmp/.out.h5.tmp.AbC123" ] && [ -e "$tmp/.other.h5.tmp.AbC123" ]
ok $? "its own stale temporary file removed, another target's kept"

# Signals: a long run killed once its temporary file exists: one sample a
# second over 3e13 tokens (485 days at tiny.cfg's pace, 4.2e7 samples a
# series: minutes of writing, under the 1e8 samples a run may ask for).
for sig in INT TERM; do
	rm -f "$tmp"/.sig.h5.tmp.*
	"$TRAINSIM" -q -o "$tmp/sig.h5" -s run.tokens=3e13 -s output.sample_interval_s=1 \
		scenarios/tiny.cfg 2>/dev/null &
	pid=$!
	i=0
	while [ $i -lt 100 ] && ! ls -a "$tmp" | grep -q '^\.sig\.h5\.tmp\.'; do
		sleep 0.1; i=$((i + 1))
	done
	kill -"$sig" $pid
	wait $pid
	st=$?
	want=$([ $sig = INT ] && echo 130 || echo 143)
	ok_eq "$st" "$want" "SIG$sig: exit $want (128 + signal number)"
	! ls -a "$tmp" | grep -q '^\.\?sig\.h5'
	ok $? "SIG$sig: no temporary file, no output"
done
