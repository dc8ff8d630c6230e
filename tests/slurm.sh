#!/bin/sh
# The sweeps' Slurm path against a real Slurm: a one-node cluster on this
# machine (munged, slurmctld and slurmd with a slurm.conf generated in a
# scratch folder, ports of their own), a --small checkpoint-interval sweep
# submitted with --slurm (an sbatch --array job and a collect job that
# waits for it), then results.tsv checked: one row per run the sweep
# expects, every run completed.  Needs root (the daemons run as root) and
# slurm-wlm + munge: installed here when root and CI=true, else skipped
# with a message.  Bounded (TRAINSIM_SLURM_WAIT_S, default 120 s, for the
# jobs); the daemons are stopped on every exit (trap).
cd "$SRCDIR" || exit 1
. tests/tap.sh

skip_all() { echo "1..0 # SKIP $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip_all "not root: the test daemons run as root"
have() { command -v slurmctld && command -v slurmd && command -v munged && command -v sbatch; } >/dev/null 2>&1
if ! have && [ "${CI:-}" = true ] && command -v apt-get >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1
fi
have || skip_all "no slurmctld, slurmd, munged and sbatch (apt-get install slurm-wlm munge; CI=true installs them)"

d=$tmp/slurm
mkdir -p "$d/state" "$d/spool" "$d/munge" && chmod 700 "$d/munge"
host=$(hostname -s)
# Ports from the test's pid, away from Slurm's 6817/6818: two runs at once
# (make -j) do not meet.
port=$((20000 + ($$ % 20000)))
pids=""
stop() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do
		i=0; while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 1' INT TERM HUP

cat >"$d/slurm.conf" <<CONF
ClusterName=trainsim-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$d/slurm.conf
plan 5

dd if=/dev/urandom of="$d/munge/key" bs=1024 count=1 2>/dev/null && chmod 400 "$d/munge/key"
munged -F -f --key-file="$d/munge/key" --socket="$d/munge/sock" --pid-file="$d/munge/pid" \
	--log-file="$d/munge/log" --seed-file="$d/munge/seed" >"$d/munge/out" 2>&1 & pids="$pids $!"
slurmctld -D -i -f "$d/slurm.conf" >"$d/ctld.out" 2>&1 & pids="$pids $!"
slurmd -D -f "$d/slurm.conf" >"$d/d.out" 2>&1 & pids="$pids $!"
i=0
while [ "$(sinfo -h -o %t 2>/dev/null)" != idle ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(sinfo -h -o %t 2>/dev/null)" = idle ]
ok $? "a one-node Slurm on $host is up (sinfo: idle)" || {
	tail -n 5 "$d/slurmctld.log" "$d/slurmd.log" "$d/munge/log" 2>/dev/null | sed 's/^/# /'; }

out=$d/sweep
TRAINSIM=$(cd "$(dirname "$TRAINSIM")" && pwd)/$(basename "$TRAINSIM") \
	sh scenarios/sweeps/checkpoint-interval.sh --small --slurm -o "$out" >"$d/submit" 2>&1
ok $? "--slurm submits the array job and its collect job: $(tail -n 1 "$d/submit")"
grep -q '^#SBATCH --array=1-' "$out/slurm-run.sh"
ok $? "as an sbatch --array job ($(sed -n 's/^#SBATCH --array=//p' "$out/slurm-run.sh") tasks)"

wait_s=${TRAINSIM_SLURM_WAIT_S:-120}
i=0
while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $i -lt $((wait_s * 2)) ]; do sleep 0.5; i=$((i + 1)); done
[ -z "$(squeue -h -o %i 2>/dev/null)" ] && [ -s "$out/results.tsv" ]
ok $? "the jobs ended within $wait_s s and the collect job wrote results.tsv" ||
	tail -n 3 "$out"/logs/slurm-*.out 2>/dev/null | sed 's/^/# /'

want=$(wc -l <"$out/expected.txt" 2>/dev/null || echo 0)
c=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "completed") c = i; next }
	c && $c == 1 { n++ } END { print n + 0 }' "$out/results.tsv" 2>/dev/null)
[ "$want" -gt 0 ] && [ "$c" = "$want" ] && [ "$(($(wc -l <"$out/results.tsv") - 1))" = "$want" ]
ok $? "every run of the grid is a row of results.tsv, completed ($c of $want)"
