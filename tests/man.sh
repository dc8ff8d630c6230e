#!/bin/sh
# man.sh -- the man pages hold what the program does: every setting of
# `trainsim --schema=tsv` (renamed ones included) is an entry of
# trainsim-scenario(5), and every option of every --help text and every
# subcommand is in trainsim(1); both format without warnings (groff -ww)
# and man -l shows them.  The pages are generated from the program by
# doc/mkman.sh, so a failure here means the generator lost something.
set -u
. "$SRCDIR/tests/tap.sh"

p1=$BUILDDIR/doc/trainsim.1 p5=$BUILDDIR/doc/trainsim-scenario.5
# roff source back to text: \- is -, \e is a backslash.
plain() { sed -e 's/\\-/-/g' -e 's/\\e/\\/g' "$1"; }
plain "$p1" >"$tmp/1" && plain "$p5" >"$tmp/5"
ok $? "both pages exist ($p1, $p5)"

# Every setting, by its path as an entry (".B path").
"$TRAINSIM" --schema=tsv | sed 1d | cut -f1 >"$tmp/keys"
n=$(wc -l <"$tmp/keys")
missing=0
while read -r k; do
	grep -F -x -q ".B $k" "$tmp/5" || { echo "# not in trainsim-scenario(5): $k"; missing=$((missing + 1)); }
done <"$tmp/keys"
ok $missing "each of the $n settings of --schema=tsv is an entry of trainsim-scenario(5)"
[ "$n" -gt 100 ]; ok $? "the schema has more than 100 settings ($n): the list was read"
entries=$(sed -n '/^\.SH SETTINGS/,/^\.SH FILES/p' "$tmp/5" | grep -c '^\.B ')
[ "$entries" -eq "$n" ]; ok $? "as many entries as settings ($entries, $n): none made up"
grep -F -A2 -x '.B model.layers' "$tmp/5" | grep -q '^int; unit none; 1\.\.100000; default required\.$'
ok $? "model.layers reads: int; unit none; 1..100000; default required"

# Every option of every help text, and every subcommand.
subs=$("$TRAINSIM" --help | sed -n '/^Subcommands/,/^$/p' | awk '/^  [a-z]/ { print $1 }')
[ -n "$subs" ]; ok $? "subcommands listed by trainsim --help: $(echo $subs)"
missing=0
for s in $subs; do
	grep -q -x ".SS $s" "$tmp/1" || { echo "# no section for $s"; missing=$((missing + 1)); }
done
ok $missing "each subcommand has its section in trainsim(1)"
missing=0 count=0
for s in "" $subs; do
	# shellcheck disable=SC2086
	"$TRAINSIM" $s --help | awk 'match($0, /^ +-/) && RLENGTH <= 9 { sub(/^ +/, ""); split($0, a, /  +/); print a[1] }' >"$tmp/opts"
	while read -r o; do
		count=$((count + 1))
		grep -F -x -q ".B $o" "$tmp/1" || { echo "# not in trainsim(1): trainsim $s $o"; missing=$((missing + 1)); }
	done <"$tmp/opts"
done
ok $missing "each of the $count options of the --help texts is in trainsim(1)"
grep -F -x -q '.B --schema=tsv' "$tmp/1"; ok $? "trainsim(1) has --schema=tsv"
grep -q 'TRAINSIM_PATH' "$tmp/1" && grep -q 'TRAINSIM_PATH' "$tmp/5"
ok $? "both pages say where TRAINSIM_PATH is searched"

if command -v groff >/dev/null 2>&1; then
	w=$(groff -man -ww -z "$p1" 2>&1; groff -man -ww -z "$p5" 2>&1)
	[ -z "$w" ]; ok $? "groff -man -ww: no warnings${w:+ ($w)}"
else
	skip "groff -man -ww" "groff not installed"
fi
if command -v man >/dev/null 2>&1; then
	MANPAGER=cat MANWIDTH=80 man -l "$p1" 2>/dev/null | grep -q '^NAME' &&
	MANPAGER=cat MANWIDTH=80 man -l "$p5" 2>/dev/null | grep -q 'gpus\.\*\.tdp_w'
	ok $? "man -l shows both (trainsim-scenario(5) with gpus.*.tdp_w)"
else
	skip "man -l" "man not installed"
fi
plan "$tap_n"
