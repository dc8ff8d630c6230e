# tests/outputs.sh -- read trainsim's outputs from the shell tests: figures
# of --json, attributes and series of the HDF5 file (through h5dump, the
# file's public contract), rows of /events.  Sourced after tests/tap.sh.
# Numbers come back with 17 significant digits, as written.

# json FILE KEY: a figure of --json's one-line object.
json() { sed -n "s/.*\"$2\": *\([^,}]*\).*/\1/p" "$1"; }

# h5attr FILE PATH: a scalar attribute, e.g. /summary/cost_usd or /seed.
h5attr() {
	h5dump -m %.17g -a "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): *//p' | tr -d '"'
}

# series_len FILE NAME: the number of samples of /timeseries/NAME.
series_len() {
	h5dump -H -d "/timeseries/$2" "$1" | sed -n 's/.*DATASPACE.*( \([0-9]*\) ).*/\1/p' | head -1
}

# dataset FILE PATH: the numbers of a one-column dataset, one a line.
dataset() {
	h5dump -y -w 0 -m %.17g -d "$2" "$1" | sed -n '/DATA {/,/}/p' |
		tr -d ' ' | tr ',' '\n' | grep -E '^[-0-9.e+]+$'
}

# series FILE NAME: the samples of /timeseries/NAME, one a line.
series() { dataset "$1" "/timeseries/$2"; }

# events FILE: the rows of /events as "time kind" lines (kind an enum name,
# or a quoted string in files of layout 1).
events() {
	h5dump -w 0 -m %.17g -d /events "$1" | awk '
		/^ *\([0-9]+\): \{/ { n = 0; next }
		/^ *[-0-9.e+]+,$/ && n == 0 { t = $1; sub(/,$/, "", t); n = 1; next }
		/^ *"?[a-z_]+"?,$/ && n == 1 { k = $1; gsub(/[",]/, "", k); print t, k; n = 2 }'
}
