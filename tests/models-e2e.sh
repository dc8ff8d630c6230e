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
echo "1..18"

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

# The step model's MoE all-to-alls are the collective's alltoallv: tiny.cfg
# as an 8-expert top-2 MoE on one 8-GPU A100 node (EP 8, TP 1, PP 1, 8
# microbatches of one 2048-token sequence): per all-to-all each GPU sends
# 2048 x 2 x 768 x 2 = 6,291,456 bytes; 12 MoE layers x 8 microbatches x 4
# all-to-alls (dispatch and combine, forward and backward) are the exposed
# communication (no TP, no overlap), so each is tp_exposed_s / 384.
moe="-s model.moe.experts=8 -s model.moe.top_k=2 -s parallel.ep=8 -s parallel.tp=1
	-s parallel.pp=1 -s cluster.gpus=8 -s parallel.global_batch=64 -s parallel.micro_batch=1"
a2a() { # F: one all-to-all's time (us) in the collective's table
	"$TRAINSIM" collective --op alltoallv --imbalance "$1" --ranks 8 -b 6291456 \
		-e 6291456 $moe scenarios/tiny.cfg | awk '!/^#/ { print $6 }'
}
# shellcheck disable=SC2086 # moe is a word list on purpose
"$TRAINSIM" -q -o "$tmp/m2.h5" $moe -s model.moe.imbalance=2 scenarios/tiny.cfg &&
	x=$(h5dump -a /step/tp_exposed_s "$tmp/m2.h5" | sed -n 's/.*(0): *//p') &&
	awk -v x="$x" -v c="$(a2a 2)" 'BEGIN { d = x / 384 * 1e6 - c; exit !(d < 0.006 && d > -0.006) }'
ok $? "imbalance 2: the step model's all-to-all is the collective's alltoallv ($x s / 384, $(a2a 2) us)"
# By hand: GPU 0 takes in F S/8 from each of 7 peers through its NVLink3
# port (300 GB/s at NCCL's 76.7%, nccl-tests' 230 GB/s on 8 A100): the
# time grows by 7/8 S/B per unit of F, 23.92 us; latency cancels
awk -v a="$(a2a 1)" -v b="$(a2a 2)" -v c="$(a2a 4)" 'BEGIN { u = 7 / 8 * 6291456 / (300e9 * 0.767) * 1e6;
	exit !(b - a - u < 0.02 && b - a - u > -0.02 && c - b - 2 * u < 0.02 && c - b - 2 * u > -0.02) }'
ok $? "alltoallv on NVLink: + 7/8 S/B per unit of imbalance ($(a2a 1), $(a2a 2), $(a2a 4) us)"
# busbw = algbw x (n-1)/n, nccl-tests' all-to-all factor, sizes the mean
"$TRAINSIM" collective --op alltoall --imbalance 2 --ranks 8 -b 6291456 -e 6291456 $moe \
	scenarios/tiny.cfg | awk '!/^#/ { a = 6291456 / $6 / 1e3; exit !($7 - a < 0.006 && $7 - a > -0.006 &&
	$8 - a * 7 / 8 < 0.006 && $8 - a * 7 / 8 > -0.006) }'
ok $? "alltoallv table: algbw S/time, busbw x 7/8"

# parallel.ep_overlap=shared_expert (Megatron-Core
# --moe-shared-expert-overlap): one shared expert of 768 x 3072 on a GPU's
# 2048 tokens, 2 x 2 x 2048 x 768 x 3072 = 19.3 GFLOP forward (62 us at
# the A100's 312 TFLOPS peak, more at the compute model's efficiency,
# twice that backward), outlasts each pass's two all-to-alls of 6,291,456
# bytes at imbalance 1.25 (2 x 42 us, as above): every one hidden.  While
# they run beside it, NCCL's kernel holds 24 of the A100's 108 SMs
# (step_layer.c), so the compute runs 24/84 of the hidden time longer: the
# iteration is shorter by 60/84 of what they exposed without overlap (no
# stragglers, and the gradients reduced after the backward, so nothing
# else takes SMs beside the passes)
sh="$moe -s model.moe.shared_experts=1 -s cluster.gpu_speed_sigma=0 -s parallel.overlap_grad_reduce=false"
# shellcheck disable=SC2086 # sh is a word list on purpose
"$TRAINSIM" -q -o "$tmp/o0.h5" $sh scenarios/tiny.cfg &&
	"$TRAINSIM" -q -o "$tmp/o1.h5" $sh -s parallel.ep_overlap=shared_expert scenarios/tiny.cfg
ok $? "parallel.ep_overlap=shared_expert runs"
at() { h5dump -a "/step/$1" "$2" | sed -n 's/.*(0): *//p'; }
awk -v x0="$(at tp_exposed_s "$tmp/o0.h5")" -v x1="$(at tp_exposed_s "$tmp/o1.h5")" \
	-v i0="$(at iteration_s "$tmp/o0.h5")" -v i1="$(at iteration_s "$tmp/o1.h5")" \
	'BEGIN { d = i0 - i1 - x0 * 60 / 84; exit !(x0 > 0 && x1 == 0 && d < 3e-6 && d > -3e-6) }'
ok $? "shared experts hide the all-to-alls, their SMs taken: exposed $(at tp_exposed_s "$tmp/o0.h5") s -> $(at tp_exposed_s "$tmp/o1.h5"), iteration $(at iteration_s "$tmp/o0.h5") -> $(at iteration_s "$tmp/o1.h5") s"
