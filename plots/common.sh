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

# Human units for titles: money as $12.3k / $1.23M, carbon in t, energy in
# MWh or GWh, spans in days.
human_usd() {
	awk -v v="$1" 'BEGIN { a = v < 0 ? -v : v
		if (a >= 1e9) printf "$%.3gB", v / 1e9; else if (a >= 1e6) printf "$%.3gM", v / 1e6
		else if (a >= 1e3) printf "$%.3gk", v / 1e3; else printf "$%.3g", v }'
}
human_t() {
	awk -v v="$1" 'BEGIN { t = v / 1000; if (t >= 1000) printf "%.0f tCO2e", t; else printf "%.3g tCO2e", t }'
}
human_kwh() {
	awk -v v="$1" 'BEGIN { if (v >= 1e6) printf "%.3g GWh", v / 1e6
		else if (v >= 1e3) printf "%.3g MWh", v / 1e3; else printf "%.3g kWh", v }'
}
# A scale for a column whose largest value is MAX and unit is UNIT: prints
# "FACTOR LABEL", e.g. "1e-6 $M" for 3.9e8 USD.
human_scale() {
	awk -v m="$1" -v u="$2" 'BEGIN { a = m < 0 ? -m : m
		if (u == "USD") { if (a >= 1e6) print "1e-6 $M"; else if (a >= 1e3) print "1e-3 $k"; else print "1 $" }
		else if (u == "kgCO2e") print "1e-3 tCO2e"
		else if (u == "W") { if (a >= 1e6) print "1e-6 MW"; else print "1e-3 kW" }
		else if (u == "kWh") { if (a >= 1e6) print "1e-6 GWh"; else if (a >= 1e3) print "1e-3 MWh"; else print "1 kWh" }
		else if (u == "tokens") { if (a >= 1e12) print "1e-12 trillions"; else if (a >= 1e9) print "1e-9 billions"; else print "1e-6 millions" }
		else print "1 " u }'
}
