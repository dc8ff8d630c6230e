#!/bin/sh
# A sweep killed mid-run leaves its runs' temp files (runs/.NAME.h5.tmp.XXXXXX,
# trainsim's name before the rename into place); the resumed sweep removes
# those of its own targets that are older than it, and nothing else
# (issue 15: "sweeps clean theirs on resume").
. "$SRCDIR/tests/tap.sh"
cd "$tmp" || exit 1
export TRAINSIM
plan 8
command -v setsid >/dev/null 2>&1 || { for i in 1 2 3 4 5 6 7 8; do
	skip "sweep resume check $i" "no setsid to kill the sweep as a group"; done; exit 0; }

cat >study.sh <<EOS
SWEEP_ROOT='$SRCDIR'
. '$SRCDIR/scenarios/sweeps/lib.sh'
sweep_init tmpclean "\$@"
sweep_scenario scenarios/tiny.cfg
sweep_axis run.seed 1 2
sweep_go
EOS

# Runs of 10^12 tokens sampled every second take seconds and write as they
# go (tiny.cfg's 2e9 tokens take 30 ms): kill -9 the whole sweep once a run's
# temp file is there, as a lost node or a Slurm time limit would.
setsid sh study.sh -j 1 --no-plot -o s -s run.tokens=1e12 -s output.sample_interval_s=1 \
	>/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 300 ] && ! ls -a s/runs 2>/dev/null | grep -q '^\.run\.seed=1\.h5\.tmp\.'; do
	sleep 0.1; i=$((i + 1))
done
# GNU parallel puts each job in a process group of its own: kill every
# process of the sweep's session, by id.
for p in $(ps -o pid= -s "$pid" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
wait "$pid" 2>/dev/null
sleep 0.2
left=$(ls -a s/runs | grep -c '^\.run\.seed=.\.h5\.tmp\.......$')
[ "$left" -ge 1 ]; ok $? "the killed sweep left its run's temp file ($left)"
[ ! -e s/runs/run.seed=1.h5 ]; ok $? "the killed run has no .h5"

# Beside it: the temp file of a file that is no target of this grid, and one
# of a target but newer than the resumed sweep (a sweep still writing it).
: >s/runs/.other.h5.tmp.AbC123
touch -d '1 hour ago' s/runs/.other.h5.tmp.AbC123
: >s/runs/.run.seed=2.h5.tmp.Zz9Zz9
touch -d '1 hour' s/runs/.run.seed=2.h5.tmp.Zz9Zz9
: >s/runs/.run.seed=2.h5.tmp.notsix7
touch -d '1 hour ago' s/runs/.run.seed=2.h5.tmp.notsix7

# Resumed to collect only: no run starts, so no trainsim removes anything;
# the sweep itself must.
sh study.sh --collect --no-plot -o s >/dev/null 2>collect.err
ls -a s/runs | grep -q '^\.run\.seed=1\.h5\.tmp\.' && left=1 || left=0
ok_eq "$left" 0 "no temp file of the killed run remains after a resume" ||
	diag "$(ls -a s/runs)"
[ -e s/runs/.other.h5.tmp.AbC123 ]; ok $? "another file's temp file is left alone"
[ -e s/runs/.run.seed=2.h5.tmp.Zz9Zz9 ]; ok $? "a temp file newer than the sweep is left alone"
[ -e s/runs/.run.seed=2.h5.tmp.notsix7 ]; ok $? "a name not ours (7 characters after .tmp.) is left alone"

sh study.sh -j 1 --no-plot -o s >/dev/null 2>resume.err
ok $? "the resumed sweep exits 0" || diag "$(cat resume.err)"
[ -s s/runs/run.seed=1.h5 ] && [ -s s/runs/run.seed=2.h5 ]; ok $? "both runs done"
