# lib.sh -- the sweep library that every study in scenarios/sweeps sources.
#
# A study names a scenario, the axes of its grid and what to plot:
#
#   . "$(dirname "$0")/lib.sh"
#   sweep_init checkpoint-interval "$@"      # common options, see sweep_usage
#   sweep_scenario scenarios/175b.cfg
#   sweep_axis training.checkpoint.interval_s 900 1800 3600
#   sweep_axis run.seed 1 2 3                # replicas
#   sweep_axis - eu:carbon.grid_g_per_kwh=56,power.pue=1.1 us:carbon.grid_g_per_kwh=369.5
#   sweep_plot() { plot_sweep --kind interval --x training.checkpoint.interval_s; }
#   sweep_go
#
# A study of a shared cluster runs `trainsim cluster` instead: it says
# `sweep_command cluster` before sweep_go (seeds: cluster_run.seed).
#
# An axis is a setting path and its values; "-" makes an axis of presets,
# each LABEL:KEY=VALUE,KEY=VALUE.  The grid is every combination.  Each run
# is `trainsim -q -s ... -o DIR/runs/NAME.h5 SCENARIO` with NAME made of its
# overrides (or labels); runs go through GNU parallel (-j the local cores),
# across machines with --sshloginfile (a shared file system is assumed:
# paths are absolute), or as a Slurm array job with --slurm.  A run whose
# .h5 exists is skipped (trainsim renames its file into place only on
# success), so rerunning resumes (and first removes the temp files,
# runs/.NAME.h5.tmp.XXXXXX, that runs killed mid-write left: see
# sweep_clean_tmp); a failed run is reported with the first
# line of its log and does not stop the others.  Then `trainsim collect`
# writes DIR/results.tsv and DIR/results.h5, and the study's sweep_plot
# draws DIR/plots/*.png and *.svg.  Exit status: 0 when every run
# succeeded, 1 when some failed (the table holds the others), 2 on bad usage.
#
# POSIX sh; values hold no blanks, tabs or commas.

sweep_usage() {
	cat <<USAGE
usage: $SWEEP_SELF [options]
  -o DIR               output directory (default: results/$SWEEP_STUDY)
  -j N                 parallel runs on this machine (default: $(sweep_cores) cores)
  -s KEY=VALUE         one more override for every run (repeatable)
  --small              the small grid (CI, smoke tests)
  --dry-run            print the commands that would run; run nothing
  --sshloginfile FILE  spread runs over the machines in FILE (GNU parallel)
  --slurm              write DIR/slurm-run.sh (an array job) and
                       DIR/slurm-collect.sh, and submit both with sbatch
  --collect            only collect and plot the runs already done
  --no-plot            do not draw
USAGE
}

sweep_die() { echo "$SWEEP_SELF: $*" >&2; exit 2; }

sweep_cores() {
	nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1
}

# Quote one word for sh: 'it'\''s'.
sweep_q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

sweep_abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$(pwd)" "$1" ;; esac; }

sweep_init() {
	SWEEP_STUDY=$1; shift
	SWEEP_SELF=$(basename "$0")
	SWEEP_SCRIPT=$(cd "$(dirname "$0")" && pwd)/$SWEEP_SELF
	# The source tree: a study in scenarios/sweeps is two levels down; one
	# elsewhere sets SWEEP_ROOT before sourcing this file.
	[ -n "${SWEEP_ROOT:-}" ] || SWEEP_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
	SWEEP_DIR=""; SWEEP_JOBS=$(sweep_cores); SWEEP_SMALL=0; SWEEP_DRY=0
	SWEEP_SSH=""; SWEEP_SLURM=0; SWEEP_COLLECT_ONLY=0; SWEEP_PLOT=1
	SWEEP_FIXED=""; SWEEP_ARGS="$*"; SWEEP_CMD=""
	while [ $# -gt 0 ]; do
		case $1 in
		-o) [ $# -ge 2 ] || sweep_die "-o needs a directory"; SWEEP_DIR=$2; shift ;;
		-j) [ $# -ge 2 ] || sweep_die "-j needs a number"; SWEEP_JOBS=$2; shift
		    case $SWEEP_JOBS in ''|*[!0-9]*) sweep_die "-j $SWEEP_JOBS: expected a number" ;; esac ;;
		-s) [ $# -ge 2 ] || sweep_die "-s needs KEY=VALUE"
		    SWEEP_FIXED="$SWEEP_FIXED	$2"; shift ;;
		--small) SWEEP_SMALL=1 ;;
		--dry-run|-n) SWEEP_DRY=1 ;;
		--sshloginfile) [ $# -ge 2 ] || sweep_die "--sshloginfile needs a file"
		    SWEEP_SSH=$(sweep_abs "$2"); shift ;;
		--slurm) SWEEP_SLURM=1 ;;
		--collect) SWEEP_COLLECT_ONLY=1 ;;
		--no-plot) SWEEP_PLOT=0 ;;
		-h|--help) sweep_usage; exit 0 ;;
		*) sweep_usage >&2; sweep_die "unknown option $1" ;;
		esac
		shift
	done
	[ -n "$SWEEP_DIR" ] || SWEEP_DIR=results/$SWEEP_STUDY
	mkdir -p "$SWEEP_DIR" || sweep_die "cannot create $SWEEP_DIR"
	SWEEP_DIR=$(cd "$SWEEP_DIR" && pwd)
	if [ -z "${TRAINSIM:-}" ]; then
		if [ -x "$SWEEP_ROOT/trainsim" ]; then TRAINSIM=$SWEEP_ROOT/trainsim
		else TRAINSIM=$(command -v trainsim) || sweep_die "no trainsim (build it, or set TRAINSIM)"
		fi
	fi
	TRAINSIM=$(sweep_abs "$TRAINSIM")
	SWEEP_AXES=$SWEEP_DIR/axes.txt
	: >"$SWEEP_AXES"
}

sweep_scenario() {
	case $1 in
	/*) SWEEP_SCENARIO=$1 ;;
	*) SWEEP_SCENARIO=$SWEEP_ROOT/$1 ;;
	esac
	[ -f "$SWEEP_SCENARIO" ] || sweep_die "no scenario $SWEEP_SCENARIO"
}

# sweep_command CMD: each run is `trainsim CMD ...` (e.g. cluster).
sweep_command() { SWEEP_CMD=$1; }

# sweep_axis KEY VALUE...  (one tab-separated line per axis)
sweep_axis() {
	key=$1; shift
	[ $# -gt 0 ] || sweep_die "axis $key has no values"
	line=$key
	for v in "$@"; do line="$line	$v"; done
	printf '%s\n' "$line" >>"$SWEEP_AXES"
}

# sweep_seeds SMALL FULL: run.seed 1..SMALL with --small, 1..FULL otherwise.
sweep_seeds() {
	if [ "$SWEEP_SMALL" = 1 ]; then sweep_axis run.seed $(seq 1 "$1")
	else sweep_axis run.seed $(seq 1 "$2")
	fi
}

# One line per grid point: NAME<TAB>KEY=VALUE<TAB>KEY=VALUE...
sweep_expand() {
	awk -F'\t' '
	{ key[NR] = $1; n[NR] = NF - 1; for (i = 2; i <= NF; i++) val[NR, i - 1] = $i }
	function emit(a, name, ovs,    i, v, lab, rest, m, parts, j) {
		if (a > NR) { print name "\t" ovs; return }
		for (i = 1; i <= n[a]; i++) {
			v = val[a, i]
			if (key[a] == "-") {
				lab = v; rest = v
				if (index(v, ":")) { lab = substr(v, 1, index(v, ":") - 1); rest = substr(v, index(v, ":") + 1) }
				m = split(rest, parts, ",")
				rest = ""
				for (j = 1; j <= m; j++) rest = rest "\t" parts[j]
				emit(a + 1, name (name == "" ? "" : ",") lab, ovs rest)
			} else {
				emit(a + 1, name (name == "" ? "" : ",") key[a] "=" v, ovs "\t" key[a] "=" v)
			}
		}
	}
	END { if (NR) emit(1, "", "") }' "$SWEEP_AXES" |
	awk -F'\t' 'BEGIN { OFS = "\t" } { gsub(/[^A-Za-z0-9._=+:,-]/, "_", $1); print }'
}

# commands.txt: the command of every grid point whose .h5 is missing;
# expected.txt: every grid point's .h5.  One awk pass (a shell loop forks
# per run and took 40 s for 1,000 runs).  Prints how many are done.
sweep_commands() {
	ls "$SWEEP_DIR/runs" >"$SWEEP_DIR/done.txt" 2>/dev/null
	awk -F'\t' -v dir="$SWEEP_DIR" -v ts="$TRAINSIM" -v scen="$SWEEP_SCENARIO" \
		-v fixed="$SWEEP_FIXED" -v donef="$SWEEP_DIR/done.txt" -v sq="'" \
		-v subcmd="$SWEEP_CMD" '
	# Quote for sh: it'\''s.
	function q(s) { gsub(sq, sq "\\" sq sq, s); return sq s sq }
	BEGIN {
		while ((getline f < donef) > 0) done[f] = 1
		nf = split(fixed, fx, "\t")
		for (i = 1; i <= nf; i++) if (fx[i] != "") extra = extra " -s " q(fx[i])
	}
	{
		h5 = dir "/runs/" $1 ".h5"
		print h5 > (dir "/expected.txt")
		if (($1 ".h5") in done) { ndone++; next }
		cmd = q(ts) (subcmd == "" ? "" : " " subcmd) " -q"
		for (i = 2; i <= NF; i++) if ($i != "") cmd = cmd " -s " q($i)
		print cmd extra " -o " q(h5) " " q(scen) " >" q(dir "/logs/" $1 ".log") " 2>&1" > (dir "/commands.txt")
	}
	END { print ndone + 0 }' "$SWEEP_DIR/grid.txt"
}

sweep_go() {
	[ -n "${SWEEP_SCENARIO:-}" ] || sweep_die "the study names no scenario"
	mkdir -p "$SWEEP_DIR/runs" "$SWEEP_DIR/logs" || sweep_die "cannot create $SWEEP_DIR/runs"
	sweep_expand >"$SWEEP_DIR/grid.txt"
	total=$(wc -l <"$SWEEP_DIR/grid.txt")
	: >"$SWEEP_DIR/commands.txt"
	: >"$SWEEP_DIR/expected.txt"
	done_n=$(sweep_commands) || sweep_die "cannot write the commands"
	todo=$(wc -l <"$SWEEP_DIR/commands.txt")
	echo "$SWEEP_STUDY: $total runs, $done_n already done, $todo to run (in $SWEEP_DIR)" >&2
	if [ "$SWEEP_DRY" = 1 ] && [ "$SWEEP_SLURM" = 0 ]; then
		cat "$SWEEP_DIR/commands.txt"
		return 0
	fi
	sweep_clean_tmp
	if [ "$SWEEP_SLURM" = 1 ] && [ "$SWEEP_COLLECT_ONLY" = 0 ]; then
		sweep_slurm "$todo"
		return $?
	fi
	[ "$SWEEP_COLLECT_ONLY" = 1 ] || [ "$todo" -eq 0 ] || sweep_run_all
	sweep_report
	failed=$?
	sweep_collect || return 1
	[ "$SWEEP_PLOT" = 0 ] || sweep_draw || return 1
	return "$failed"
}

# A run killed mid-write (kill -9, a node lost, a Slurm time limit) leaves
# its temp file, runs/.NAME.h5.tmp.XXXXXX (12-41 MB for the big studies),
# and a resumed sweep would keep it forever.  Before any run starts,
# remove those of this grid's targets by trainsim's own rule for its
# target: named by our pattern (".", a target's name, ".tmp.", six letters
# or digits), a regular file of ours, older than this moment -- every run
# of this sweep starts later, so nothing it writes can match; another
# sweep on the same folder would be writing newer files.
sweep_clean_tmp() {
	[ -d "$SWEEP_DIR/runs" ] || return 0
	stamp=$SWEEP_DIR/.sweep-clean.$$
	: >"$stamp" || return 0
	find "$SWEEP_DIR/runs" -maxdepth 1 -type f -name '.*.h5.tmp.??????' \
		-user "$(id -u)" ! -newer "$stamp" -print |
	awk -v expf="$SWEEP_DIR/expected.txt" '
	BEGIN { while ((getline f < expf) > 0) { n = split(f, p, "/"); ours[p[n]] = 1 } }
	{
		n = split($0, p, "/"); b = p[n]
		# ".NAME.h5.tmp.XXXXXX": NAME.h5 is what lies between.
		if (substr(b, 2, length(b) - 12) in ours && substr(b, length(b) - 5) ~ /^[A-Za-z0-9]+$/)
			print
	}' | while IFS= read -r f; do rm -f "$f"; done
	rm -f "$stamp"
}

sweep_run_all() {
	if command -v parallel >/dev/null 2>&1; then
		# Commands go in blocks of up to 25 to one `sh` each (--pipe): a
		# run takes tens of milliseconds, as much as parallel's own work
		# per job, so blocks halve the time of a big sweep; eight blocks
		# per job slot keep the slots evenly loaded.
		todo=$(wc -l <"$SWEEP_DIR/commands.txt")
		per=$((todo / (SWEEP_JOBS * 8)))
		[ "$per" -ge 1 ] || per=1
		[ "$per" -le 25 ] || per=25
		set -- --will-cite -j "$SWEEP_JOBS" --joblog "$SWEEP_DIR/joblog" --pipe -N "$per"
		[ -z "$SWEEP_SSH" ] || set -- "$@" --sshloginfile "$SWEEP_SSH"
		# On a terminal, parallel's bar: share done and ETA (of blocks).
		[ ! -t 2 ] || set -- "$@" --bar
		parallel "$@" sh <"$SWEEP_DIR/commands.txt"
	else
		echo "$SWEEP_STUDY: GNU parallel not found; running one at a time" >&2
		[ -z "$SWEEP_SSH" ] || sweep_die "--sshloginfile needs GNU parallel"
		todo=$(wc -l <"$SWEEP_DIR/commands.txt") i=0
		while IFS= read -r c; do
			[ ! -t 2 ] || printf '\r%d of %d runs ' "$i" "$todo" >&2
			sh -c "$c"; i=$((i + 1))
		done <"$SWEEP_DIR/commands.txt"
		[ ! -t 2 ] || printf '\r%d of %d runs\n' "$i" "$todo" >&2
	fi
	return 0
}

# Failed runs of this grid: no .h5; the first lines of their logs.
sweep_report() {
	nfail=0
	while IFS= read -r h5; do
		[ -e "$h5" ] && continue
		nfail=$((nfail + 1))
		name=$(basename "$h5" .h5)
		log=$SWEEP_DIR/logs/$name.log
		msg=$( [ -s "$log" ] && head -n 1 "$log" || echo "not run")
		echo "$SWEEP_STUDY: FAILED $name: $msg" >&2
	done <"$SWEEP_DIR/expected.txt"
	[ "$nfail" -eq 0 ] && return 0
	echo "$SWEEP_STUDY: $nfail of $(wc -l <"$SWEEP_DIR/expected.txt") runs failed (logs in $SWEEP_DIR/logs)" >&2
	return 1
}

sweep_collect() {
	set --
	while IFS= read -r h5; do [ -e "$h5" ] && set -- "$@" "$h5"; done <"$SWEEP_DIR/expected.txt"
	if [ $# -eq 0 ]; then
		echo "$SWEEP_STUDY: no run succeeded; nothing to collect" >&2
		return 1
	fi
	"$TRAINSIM" collect -o "$SWEEP_DIR/results.h5" "$@" >"$SWEEP_DIR/results.tsv.tmp" &&
		mv "$SWEEP_DIR/results.tsv.tmp" "$SWEEP_DIR/results.tsv" || {
		echo "$SWEEP_STUDY: trainsim collect failed" >&2; return 1; }
	echo "$SWEEP_STUDY: $# runs in $SWEEP_DIR/results.tsv" >&2
}

# Studies define sweep_plot (using plot_sweep); the default is the Pareto
# picture of whatever was swept.
plot_sweep() {
	"$SWEEP_ROOT/plots/plot-sweep" -o "$SWEEP_DIR/plots" "$@" "$SWEEP_DIR/results.tsv"
}

# plot_groups GROUP Y TITLE: the figures Y (comma-separated) grouped by
# GROUP, then the Pareto picture, both titled TITLE.
plot_groups() {
	plot_sweep --kind groups --group "$1" --y "$2" --title "$3" &&
	plot_sweep --kind pareto --title "$3"
}

sweep_draw() {
	if command -v sweep_plot >/dev/null 2>&1; then sweep_plot
	else plot_sweep --kind pareto
	fi || { echo "$SWEEP_STUDY: plotting failed" >&2; return 1; }
}

# Slurm: an array job over the commands (at most 1000 tasks, several
# commands per task beyond that), then a collect job once all have ended.
sweep_slurm() {
	todo=$1
	per=$(( (todo + 999) / 1000 )); [ "$per" -ge 1 ] || per=1
	tasks=$(( (todo + per - 1) / per ))
	run=$SWEEP_DIR/slurm-run.sh col=$SWEEP_DIR/slurm-collect.sh
	cat >"$run" <<JOB
#!/bin/sh
#SBATCH --job-name=trainsim-$SWEEP_STUDY
#SBATCH --array=1-$tasks
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=$SWEEP_DIR/logs/slurm-%A_%a.out
# $todo runs of $SWEEP_STUDY, $per per array task; written by $SWEEP_SELF.
first=\$(( (SLURM_ARRAY_TASK_ID - 1) * $per + 1 ))
last=\$(( first + $per - 1 ))
sed -n "\${first},\${last}p" '$SWEEP_DIR/commands.txt' | while IFS= read -r c; do sh -c "\$c"; done
JOB
	cat >"$col" <<JOB
#!/bin/sh
#SBATCH --job-name=trainsim-$SWEEP_STUDY-collect
#SBATCH --output=$SWEEP_DIR/logs/slurm-collect-%j.out
TRAINSIM=$(sweep_q "$TRAINSIM") exec sh $(sweep_q "$SWEEP_SCRIPT") --collect -o $(sweep_q "$SWEEP_DIR") $SWEEP_ARGS
JOB
	chmod +x "$run" "$col"
	if [ "$SWEEP_DRY" = 1 ] || [ "$todo" -eq 0 ]; then
		echo "sbatch --parsable $run"
		echo "sbatch --dependency=afterany:JOBID $col"
		return 0
	fi
	command -v sbatch >/dev/null 2>&1 || sweep_die "--slurm: no sbatch here (the scripts are in $SWEEP_DIR)"
	jid=$(sbatch --parsable "$run") || sweep_die "sbatch $run failed"
	sbatch --dependency=afterany:"${jid%%;*}" "$col" || sweep_die "sbatch $col failed"
	echo "$SWEEP_STUDY: submitted array job $jid ($tasks tasks) and its collect job" >&2
}
