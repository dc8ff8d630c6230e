# common.sh -- what plots/plot and plots/plot-sweep share: render a gnuplot
# script to PNG (pngcairo) and SVG, checking gnuplot's exit status and that
# each file is non-empty.  Both terminals come with Debian's gnuplot-nox.
#
#   . "$PLOTS/common.sh"
#   gp_render script.gp OUTDIR/name 'datafile="x.dat"' 'title="..."'
#
# Variables are passed as gnuplot -e assignments before the script; the
# script must not set the terminal or the output.

PLOT_W=${PLOT_W:-1000}
PLOT_H=${PLOT_H:-680}

plot_die() { echo "$PLOT_SELF: $*" >&2; exit "${2:-1}"; }

gp_render() {
	script=$1 base=$2; shift 2
	command -v gnuplot >/dev/null 2>&1 || plot_die "gnuplot not found (Debian: gnuplot-nox)"
	for fmt in png svg; do
		case $fmt in
		png) term="set terminal pngcairo size $PLOT_W,$PLOT_H font 'sans,10' noenhanced" ;;
		svg) term="set terminal svg size $PLOT_W,$PLOT_H font 'sans,10' noenhanced dynamic background '#ffffff'" ;;
		esac
		vars="$term; set output '$base.$fmt.tmp'"
		for v in "$@"; do vars="$vars; $v"; done
		# gnuplot exits non-zero on an error in a script given as a file.
		if ! gnuplot -e "$vars" "$PLOTS/$script" 2>"$base.$fmt.err"; then
			cat "$base.$fmt.err" >&2
			rm -f "$base.$fmt.tmp" "$base.$fmt.err"
			plot_die "gnuplot failed on $script"
		fi
		# Warnings are worth seeing, but not fatal; an empty range (all
		# runs alike) is not worth one.
		grep -v 'Warning: empty .* range' "$base.$fmt.err" | sed "s|^|$PLOT_SELF: $script: |" >&2
		rm -f "$base.$fmt.err"
		[ -s "$base.$fmt.tmp" ] || plot_die "gnuplot wrote nothing for $base.$fmt"
		mv "$base.$fmt.tmp" "$base.$fmt"
		echo "$base.$fmt"
	done
}

# The column number of a header name in a TSV file (0 when absent).
tsv_col() {
	head -n 1 "$2" | awk -F'\t' -v k="$1" '{ for (i = 1; i <= NF; i++) if ($i == k) { print i; exit } print 0 }'
}
