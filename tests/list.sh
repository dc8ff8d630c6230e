#!/bin/sh
# list.sh -- `trainsim list`: each catalog's entries with their key figures
# and sources.  Expected values are the catalog's own figures (scenarios/
# catalog/*.cfg, regions/regions.cfg) and sums of them done by hand:
#   dgx_h100 node (nodes.cfg) = its host parts summed, idle 210 + 128 + 30 +
#   250 + 44 + 200 + 150 = 1012 W and busy 490 + 320 + 50 + 900 + 106 + 440
#   + 250 = 2556 W, with 8 x h100_sxm: 8 x 700 W = 5.6 kW, 8 x 80 = 640 GB;
#   nvlink3 is given as 300e9 B/s: 300e9 x 8 / 1e9 = 2400 Gb/s.
. "$SRCDIR/tests/tap.sh"

# row KIND NAME: the entry's row, fields split on runs of 2+ blanks.
row() { "$TRAINSIM" list "$1" | awk -v n="$2" '$1 == n' | sed 's/   */|/g'; }
field() { row "$1" "$2" | cut -d'|' -f"$3"; }

"$TRAINSIM" list gpus >"$tmp/gpus"; ok $? "list gpus runs"
ok_eq "$(grep -c -v '^#' "$tmp/gpus")" 9 "8 GPUs and a header line (gpus.cfg has 8 entries)"
ok_eq "$(row gpus h100_sxm | cut -d'|' -f1-9)" "h100_sxm|989.4|1978.9|80|81559|3350|700|84|nvlink4" \
	"h100_sxm: BF16, FP8, HBM GB and MiB, GB/s, TDP, idle, NVLink as in gpus.cfg"
case $(field gpus h100_sxm 10) in *"H100 Tensor Core GPU datasheet"*) r=0 ;; *) r=1 ;; esac
ok $r "h100_sxm names its source (the H100 datasheet)"
ok_eq "$(field links nvlink3 2)" 2400 "nvlink3: 300e9 B/s = 2400 Gb/s each way"
ok_eq "$(row gpus h800_sxm | cut -d'|' -f1-9)" "h800_sxm|989.4|1978.9|80|81559|3350|700|84|nvlink4_h800" \
	"h800_sxm: the H100's figures with its own NVLink (H800 SXM5 datasheet)"
ok_eq "$(field links nvlink4_h800 2)" 1600 "nvlink4_h800: 200e9 B/s = 1600 Gb/s each way (400 GB/s both)"
ok_eq "$(row links ib_hdr | cut -d'|' -f1-8)" "ib_hdr|200|0.97|130|40|253|15|1.58" \
	"ib_hdr: 200 Gb/s, efficiency 0.97, 130 ns, radix 40, switch 253 W, NIC 15 W, 1.58 pJ/bit"
ok_eq "$(row nodes dgx_h100 | cut -d'|' -f1-8)" "dgx_h100|8|h100_sxm|1012|2556|0.95|5.6|640" \
	"dgx_h100: host idle 210+128+30+250+44+200+150 = 1012 W, busy 2556 W, 8 x 700 W, 8 x 80 GB (by hand)"
ok_eq "$(row storage fsx_lustre_100tib | cut -d'|' -f1-6)" "fsx_lustre_100tib|12.5|12.5|100|100|2" \
	"fsx_lustre_100tib: 12.5 GB/s per node, 100 GB/s caps, 2 s"
ok_eq "$(field storage host_memory 4)" "-" "host_memory: no cap given prints -, not the schema default"
ok_eq "$(row instances p5_48xlarge | cut -d'|' -f1-6)" "p5_48xlarge|8|h100_sxm|98.32|52.11|39.33" \
	"p5_48xlarge: on-demand 98.32, reserved 52.11, capacity block 39.33 USD/h"
ok_eq "$(row regions se | cut -d'|' -f1-4)" "se|40.7|1.58|-" \
	"se: 40.7 g/kWh, PUE 1.58, no price figure (-)"
missing=0
for k in gpus links nodes storage instances regions; do
	"$TRAINSIM" list "$k" >"$tmp/$k" || { diag "list $k failed"; missing=$((missing + 1)); }
	n=$(grep -v '^#' "$tmp/$k" | sed 1d | grep -c ' -$')
	rows=$(grep -v '^#' "$tmp/$k" | sed 1d | grep -c .)
	[ "$n" -eq 0 ] && [ "$rows" -gt 0 ] || { diag "$k: $n of $rows entries without a source"; missing=$((missing + 1)); }
done
ok $missing "every entry of gpus, links, nodes, storage, instances and regions has a source"

# A scenario's own entries; a directory of presets.
ok_eq "$("$TRAINSIM" list gpus scenarios/tiny.cfg | grep -c -v '^#')" 9 \
	"list gpus scenarios/tiny.cfg: the 8 GPUs it includes"
mkdir "$tmp/models"
printf '# Toy 1B (made up for this test)\nmodel = { name = "toy"; layers = 24; hidden = 2048; heads = 16; seq_len = 2048; vocab = 50257; };\n' >"$tmp/models/toy.cfg"
printf 'not a preset\n' >"$tmp/models/README"
# P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) (Narayanan et al. SC'21) for
# l = 24, h = 2048, V = 50257, s = 2048: 1,315,719,168 + the final norm's
# 2h = 4,096: 1.32 B, every parameter active.
ok_eq "$("$TRAINSIM" list models "$tmp/models" | sed 1,2d | sed 's/   */|/g')" \
	"toy|toy|24|2048|16|2048|50257|1.32|1.32|Toy 1B (made up for this test)" \
	"list models DIR: each NAME.cfg with its shape, 1.32 B parameters (by hand) and first comment line"
"$TRAINSIM" list models >/dev/null; ok $? "list models runs wherever the presets are (or are not)"
if [ -f scenarios/models/gpt3-175b.cfg ]; then
	ok_eq "$(field models gpt3-175b 8)" 174.60 \
		"the GPT-3 preset: 174.60 B parameters (Brown et al. 2020: 174.6B)"
else
	skip "the GPT-3 preset's parameters" "no scenarios/models/gpt3-175b.cfg"
fi
"$TRAINSIM" list gpu 2>"$tmp/e" >/dev/null
[ $? -eq 2 ] && grep -q 'list: gpu: unknown kind (expected gpus' "$tmp/e"
ok $? "an unknown kind: exit 2, the kinds named"
TRAINSIM_PATH=/nonexistent "$TRAINSIM" list gpus scenarios/none.cfg 2>"$tmp/e" >/dev/null
[ $? -eq 2 ] && grep -q 'scenarios/none.cfg: cannot read' "$tmp/e"
ok $? "a missing FILE.cfg: exit 2, named"
# stacks: models/stack.c's table (megatron_lm_2022: Megatron-LM of May
# 2022, fused kernels, gradient-accumulation fusion, local DDP without
# overlap, the asynchronous TP all-reduce, band 9%)
ok_eq "$("$TRAINSIM" list stacks | grep -c -v '^#')" 7 "list stacks: 6 stacks and a header line"
ok_eq "$(row stacks megatron_deepspeed | cut -d'|' -f1-11)" \
	"megatron_deepspeed|yes|no|no|no|no|no|no|no|1|28%" \
	"megatron_deepspeed: fused, no flash, no accumulation fusion, no DP overlap, ZeRO-1 (DeepSpeed's engine; stack.c)"
ok_eq "$(row stacks megatron_lm_2022 | cut -d'|' -f1-11)" \
	"megatron_lm_2022|yes|no|yes|no|no|no|no|yes|0|9%" \
	"megatron_lm_2022: fused, no flash, accumulation fused, no SP, no distributed optimizer, no DP overlap, async TP all-reduce, band 9% (stack.c)"
"$TRAINSIM" list stacks x.cfg 2>"$tmp/e" >/dev/null
[ $? -eq 2 ] && grep -q 'list stacks: no FILE.cfg' "$tmp/e"
ok $? "list stacks takes no FILE.cfg: exit 2"
plan "$tap_n"
