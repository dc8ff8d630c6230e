#!/bin/sh
# End to end for issue 13's models: FP8 on the formula model (the GPU's
# FP8 peak: iteration time x 989.4/1978.9 on H100, the catalog's dense
# peaks from NVIDIA's H100 datasheet), Llama 3 405B on the step model as
# the paper ran it (126 layers on 16 stages, no recomputation, fitting
# 80 GB), presets that @include into a scenario; Mixtral 8x7B and
# DeepSeek-V3 whole runs with failures and checkpoints.
set -u
cd "$SRCDIR" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
i=0
ok() { i=$((i + 1)); if [ "$1" -eq 0 ]; then echo "ok $i - $2"; else echo "not ok $i - $2"; fi; }
num() { sed -n "s/.*\"$1\": *\([-0-9.e+]*\).*/\1/p" "$2"; }
echo "1..13"

"$TRAINSIM" -q --json -o "$tmp/b.h5" scenarios/finops-h100.cfg >"$tmp/b.json"
"$TRAINSIM" -q --json -o "$tmp/f.h5" -s parallel.dtype=fp8 scenarios/finops-h100.cfg >"$tmp/f.json"
awk -v b="$(num iteration_time_s "$tmp/b.json")" -v f="$(num iteration_time_s "$tmp/f.json")" \
	'BEGIN { r = f / b / (989.4 / 1978.9); exit !(r > 1 - 1e-9 && r < 1 + 1e-9) }'
ok $? "formula model in FP8: iteration time x 989.4/1978.9 (H100 peaks)"
awk -v b="$(num mfu "$tmp/b.json")" -v f="$(num mfu "$tmp/f.json")" \
	'BEGIN { exit !(f / b > 1 - 1e-9 && f / b < 1 + 1e-9) }'
ok $? "MFU over the datatype's peak: the same in FP8"

"$TRAINSIM" -q --json -o "$tmp/l.h5" scenarios/llama3-405b.cfg >"$tmp/l.json" 2>"$tmp/err"
ok $? "llama3-405b.cfg runs ($(head -c 300 "$tmp/err"))"
grep -q '"params": *405853372416[,}]' "$tmp/l.json"
ok $? "Llama 3 405B: 405,853,372,416 parameters (126 x 3,187,703,808 + 2 x 128256 x 16384)"
awk -v m="$(num peak_memory_gib "$tmp/l.json")" 'BEGIN { exit !(m > 60 && m < 80e9 / 2^30) }'
ok $? "no recomputation fits 80 GB ($(num peak_memory_gib "$tmp/l.json") GiB)"
h5dump -g /step "$tmp/l.h5" >/dev/null 2>&1
ok $? "iteration simulated on the step model (/step written)"

for sc in mixtral-8x7b deepseek-v3; do
	"$TRAINSIM" -q --json -o "$tmp/$sc.h5" "scenarios/$sc.cfg" >"$tmp/$sc.json" 2>"$tmp/err"
	ok $? "$sc.cfg runs ($(head -c 300 "$tmp/err"))"
	awk -v f="$(num failures "$tmp/$sc.json")" -v c="$(num checkpoints "$tmp/$sc.json")" \
		'BEGIN { exit !(f > 0 && c > 0) }'
	ok $? "$sc.cfg: a whole run with failures and checkpoints"
done

# Llama 3 405B's 128K stage as published (Table 4): TP 8, CP 16, PP 16,
# DP 8, 16 sequences of 131,072 per DP rank
"$TRAINSIM" -q --json -o "$tmp/lc.h5" -s model.seq_len=131072 -s parallel.cp=16 \
	-s parallel.global_batch=128 -s run.tokens=1e11 \
	scenarios/llama3-405b.cfg >"$tmp/lc.json" 2>"$tmp/err"
ok $? "llama3-405b at 128K with CP 16 runs ($(head -c 300 "$tmp/err"))"
awk -v t="$(num tokens "$tmp/lc.json")" 'BEGIN { n = t / 16777216; exit !(n == int(n) && n > 0) }'
ok $? "16M-token iterations: 128 sequences of 131072 (tokens $(num tokens "$tmp/lc.json"))"

# EP traffic held against nccl-tests: alltoall_perf's name is accepted
"$TRAINSIM" collective --op alltoall -b 1M -e 16M scenarios/tiny.cfg >"$tmp/a1" &&
	"$TRAINSIM" collective --op all_to_all -b 1M -e 16M scenarios/tiny.cfg >"$tmp/a2" &&
	cmp -s "$tmp/a1" "$tmp/a2"
ok $? "collective --op alltoall: the all_to_all table"
