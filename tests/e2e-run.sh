#!/bin/sh
# End to end: the trainsim command on real scenarios, checked through the
# files and text it produces (HDF5 via h5dump, the file's public contract).
#
# The figures of scenarios/175b.cfg are checked against its inputs, by hand:
# 1024 A100-80GB (312 TFLOP/s bf16, 400 W TDP, 50 W idle: catalog/gpus.cfg)
# in 128 nodes of 8; GPT-3 175B (96 layers, hidden 12288, vocab 51200, seq
# 2048); 300e9 tokens at a global batch of 1536; full recomputation;
# $5.12 per GPU-hour; PUE 1.1; 369.5 gCO2e/kWh; checkpoints of 14 bytes per
# parameter every 10800 s at 100 GB/s (read back at 200 GB/s); 6.5 node
# failures per 1000 node-days, detected in 60 s, 600 s to restart; a sample
# every 3600 s.  Relations between outputs (cost = GPU-hours x price) stand
# in for pasted outputs wherever the step model's timings enter, so that a
# change of kernel or network model keeps them true.
cd "$SRCDIR" || exit 1
. tests/tap.sh
. tests/outputs.sh

keys="duration_s iterations tokens iteration_time_s tflops_per_gpu mfu goodput
gpu_hours energy_kwh it_energy_kwh carbon_kg embodied_carbon_kg cost_usd failures
preemptions checkpoints restarts lost_work_s peak_memory_gib"
nkeys=$(echo $keys | wc -w)
plan $((nkeys + 91))

"$TRAINSIM" -q --json -o "$tmp/a.h5" scenarios/175b.cfg >"$tmp/a.json" 2>"$tmp/err"
ok $? "175b.cfg runs"
[ -f "$tmp/a.h5" ]; ok $? "175b.cfg writes the output file"
# --json and /summary print the same doubles with 17 digits: equal strings.
for k in $keys; do
	v=$(json "$tmp/a.json" "$k")
	[ -n "$v" ] && [ "$v" = "$(h5attr "$tmp/a.h5" "/summary/$k")" ]
	ok $? "$k: /summary = --json ($v)"
done

# s KEY: a summary figure; st KEY: a /step attribute.
s() { json "$tmp/a.json" "$1"; }
st() { h5attr "$tmp/a.h5" "/step/$1"; }
dur=$(s duration_s); it=$(s iterations); tok=$(s tokens); itt=$(s iteration_time_s)
P=$(s params); gh=$(s gpu_hours)

# --- the work: tokens, iterations, parameters, FLOPs --------------------
# 300e9 / (1536 x 2048 = 3,145,728 tokens an iteration) = 95367.4 -> 95368.
ok_eq "$it" 95368 "iterations = ceil(300e9 / (1536 x 2048)) = 95368"
ok_eq "$tok" 300001787904 "tokens = 95368 iterations x 1536 x 2048 = 300,001,787,904"
ok_eq "$(st tokens_per_iteration)" 3145728 "/step tokens_per_iteration = 1536 x 2048"
# 12 l h^2 + 13 l h + (V + s) h (Narayanan et al. SC'21, sec. 5.1).
ok_near "$P" 174615822336 1e-12 "params = 12 l h^2 + 13 l h + (V + s) h = 174,615,822,336"
ok_eq "$(s gpus)" 1024 "gpus = 1024 (cluster.gpus)"
# With full recomputation: 96 B s l h^2 (1 + s/6h + V/16lh), SC'21 eq. 3.
F=$(calc "96 * 1536 * 2048 * 96 * 12288^2 * (1 + 2048 / (6 * 12288) + 51200 / (16 * 96 * 12288))")
ok_near "$(st flops_per_iter)" "$F" 1e-12 "/step flops_per_iter = 96 B s l h^2 (1 + s/6h + V/16lh) = $F"
ok_near "$(s tflops_per_gpu)" "$(calc "$F / ($itt * 1024) / 1e12")" 1e-12 \
	"tflops_per_gpu = flops_per_iter / (iteration_time_s x 1024) / 1e12"
# Model FLOPs leave the recomputed forward out: 72 B s l h^2 (1 + s/6h + V/12lh),
# the logits 6 B s h V (2 forward + 4 backward) as with recomputation.
ok_near "$(s mfu)" "$(calc "72 * 1536 * 2048 * 96 * 12288^2 * (1 + 2048 / (6 * 12288) + 51200 / (12 * 96 * 12288)) / ($itt * 1024 * 312e12)")" 1e-12 \
	"mfu = 72 B s l h^2 (1 + s/6h + V/12lh) / (iteration_time_s x 1024 x 312 TFLOP/s)"
awk -v t="$(s tflops_per_gpu)" 'BEGIN { exit !(t > 0 && t < 312) }'
ok $? "0 < tflops_per_gpu ($(s tflops_per_gpu)) < the A100's 312 TFLOP/s peak"
# No GC in 175b.cfg: the run's iteration is the step model's.
ok_eq "$itt" "$(st iteration_s)" "iteration_time_s = /step iteration_s (no GC: gc_slowdown 1)"
ok_eq "$(s gc_slowdown)" 1 "gc_slowdown = 1 without GC"
ok_near "$(s peak_memory_gib)" "$(calc "$(st peak_memory_bytes) / 2^30")" 1e-12 \
	"peak_memory_gib = /step peak_memory_bytes / 2^30"
awk -v m="$(st peak_memory_bytes)" 'BEGIN { exit !(m > 0 && m <= 80e9) }'
ok $? "peak memory fits the A100's 80 GB"

# --- time: the run's states and the failure model ------------------------
ok_near "$(s duration_days)" "$(calc "$dur / 86400")" 1e-12 "duration_days = duration_s / 86400"
ok_near "$(calc "$(s time_training_s) + $(s time_redo_s) + $(s time_checkpoint_s) + $(s time_detecting_s) + $(s time_waiting_s) + $(s time_restarting_s) + $(s time_gc_s)")" \
	"$dur" 1e-9 "duration = the sum of the time in each state"
ok_near "$(s goodput)" "$(calc "$it * $itt / $dur")" 1e-12 \
	"goodput = iterations x iteration_time_s / duration_s"
awk -v g="$(s goodput)" 'BEGIN { exit !(g > 0 && g < 1) }'; ok $? "0 < goodput < 1 with failures"
M=$(calc "1000 * 86400 / (6.5 * 128)")
ok_near "$(s mtti_s)" "$M" 1e-12 "mtti_s = 1000 node-days / (6.5 x 128 nodes) = 103,846.15 s"
# Poisson: 6.5 / 1000 node-days x 128 nodes x the run's days, within 4 sigma.
awk -v n="$(s failures)" -v d="$dur" -v m="$M" 'BEGIN { w = d / m
	exit !(n - w < 4 * sqrt(w) && w - n < 4 * sqrt(w)) }'
ok $? "failures ($(s failures)) = duration / MTTI within 4 standard errors"
ok_eq "$(calc "$(s failures_node) + $(s failures_gpu) + $(s failures_nic) + $(s failures_software)")" \
	"$(s failures)" "failures = node + gpu + nic + software failures"
ok_eq "$(s restarts)" "$(s failures)" "one restart a failure"
ok_eq "$(s preemptions)" 0 "no spot pool: no preemptions"
ok_near "$(s time_detecting_s)" "$(calc "$(s failures) * 60")" 1e-12 \
	"time_detecting_s = failures x 60 s (failures.detect_s default)"
ok_eq "$(s interrupted_restarts)" 0 "no restart interrupted"
ok_near "$(s time_restarting_s)" "$(calc "$(s restarts) * (600 + $P * 14 / 200e9)")" 1e-9 \
	"time_restarting_s = restarts x (600 s + params x 14 B / 200 GB/s)"
# A failure loses at most the work since the last checkpoint.
awk -v l="$(s lost_work_s)" -v f="$(s failures)" -v c="$(s checkpoint_interval_s)" \
	-v d="$(s checkpoint_stall_s)" 'BEGIN { exit !(l > 0 && l <= f * (c + d)) }'
ok $? "0 < lost_work_s <= failures x (checkpoint interval + stall)"

# --- checkpoints (Young 1974; Daly 2006) -----------------------------------
stall=$(calc "$P * 14 / 100e9")
ok_near "$(s checkpoint_stall_s)" "$stall" 1e-12 "checkpoint_stall_s = params x 14 B / 100 GB/s"
ok_near "$(st checkpoint_bytes)" "$(calc "$P * 14")" 1e-12 "/step checkpoint_bytes = params x 14 B"
ok_near "$(st checkpoint_load_s)" "$(calc "$P * 14 / 200e9")" 1e-12 \
	"/step checkpoint_load_s = params x 14 B / 200 GB/s"
ci=$(s checkpoint_interval_iters)
ok_eq "$ci" "$(awk -v t="$itt" 'BEGIN { x = 10800 / t; printf "%d", x + 0.5 }')" \
	"checkpoint_interval_iters = round(10800 s / iteration_time_s)"
ok_near "$(s checkpoint_interval_s)" "$(calc "$ci * $itt")" 1e-12 \
	"checkpoint_interval_s = interval_iters x iteration_time_s"
ok_eq "$(s checkpoints_lost)" 0 "no checkpoint lost"
ok_eq "$(s checkpoints)" "$(awk -v n="$it" -v c="$ci" 'BEGIN { printf "%d", n / c }')" \
	"checkpoints = floor(iterations / interval_iters): one an interval, none redone"
ok_near "$(s time_checkpoint_s)" "$(calc "$(s checkpoints) * $stall")" 1e-9 \
	"time_checkpoint_s = checkpoints x stall"
ok_near "$(s checkpoint_bytes_written)" "$(calc "$(s checkpoints) * $P * 14")" 1e-9 \
	"checkpoint_bytes_written = checkpoints x params x 14 B"
ok_near "$(s young_interval_s)" "$(calc "sqrt(2 * $stall * $M)")" 1e-12 \
	"young_interval_s = sqrt(2 delta M)"
ok_near "$(s daly_interval_s)" "$(calc "sqrt(2 * $stall * $M) * (1 + sqrt($stall / (2 * $M)) / 3 + $stall / (18 * $M)) - $stall")" 1e-12 \
	"daly_interval_s = sqrt(2 d M)(1 + sqrt(d/2M)/3 + d/18M) - d (Daly 2006 eq. 37)"

# --- accounting: GPU-hours, cost, energy, carbon --------------------------
ok_near "$gh" "$(calc "1024 * $dur / 3600")" 1e-12 "gpu_hours = 1024 GPUs x duration_s / 3600"
ok_near "$(s node_hours)" "$(calc "$gh / 8")" 1e-12 "node_hours = gpu_hours / 8 GPUs a node"
# Billed by the second (cost.billing_increment_s default 1 s), all nodes
# held from start to end.
ok_near "$(s cost_usd)" "$(awk -v d="$dur" 'BEGIN { s = int(d); if (s < d) s++
	printf "%.17g", 1024 * s / 3600 * 5.12 }')" 1e-12 \
	"cost_usd = 1024 GPUs x ceil(duration_s) / 3600 x \$5.12 (one on-demand pool)"
ok_eq "$(s cost_compute_usd)" "$(s cost_usd)" "all the cost is instance-hours"
ok_eq "$(calc "$(s cost_storage_usd) + $(s cost_electricity_usd) + $(s cost_capex_usd) + $(s cost_opex_usd)")" 0 \
	"no storage, electricity, capex or opex cost when renting"
ok_near "$(s energy_kwh)" "$(calc "$(s it_energy_kwh) * 1.1")" 1e-12 "energy_kwh = it_energy_kwh x PUE 1.1"
ok_near "$(s it_energy_kwh)" "$(calc "$(s gpu_energy_kwh) + $(s node_energy_kwh) + $(s network_energy_kwh) + $(s storage_energy_kwh)")" 1e-12 \
	"it_energy_kwh = GPU + node + network + storage energy"
awk -v e="$(s gpu_energy_kwh)" -v d="$dur" 'BEGIN { lo = 1024 * 50 * d / 3.6e6
	hi = 1024 * 400 * d / 3.6e6; exit !(e > lo && e < hi) }'
ok $? "1024 x 50 W idle < GPU power ($(s gpu_energy_kwh) kWh over the run) < 1024 x 400 W TDP"
ok_near "$(s carbon_kg)" "$(calc "$(s energy_kwh) * 369.5 / 1000")" 1e-12 \
	"carbon_kg = energy_kwh x 369.5 g/kWh"
ok_eq "$(s carbon_location_kg)" "$(s carbon_kg)" "carbon_kg is the location-based figure"
ok_eq "$(s carbon_market_kg)" "$(s carbon_kg)" "no market instruments: market = location"
# (1024 x 150 kg + 128 x 2500 kg) over a 6-year service life (carbon.* defaults),
# plus the fabric as built (tests/net-platform-t): 146 HDR switches x 280 kg
# and 1,024 NICs x 17 kg (catalog/links.cfg).
ok_near "$(s embodied_carbon_kg)" \
	"$(calc "(1024 * 150 + 128 * 2500 + 146 * 280 + 1024 * 17) / (6 * 365.25 * 86400) * $dur")" 1e-12 \
	"embodied_carbon_kg = (1024 x 150 + 128 x 2500 + 146 x 280 + 1024 x 17 kg) x duration / 6 years"
ok_near "$(s usd_per_mtok)" "$(calc "$(s cost_usd) / $tok * 1e6")" 1e-12 "usd_per_mtok = cost / Mtokens"
ok_near "$(s kwh_per_mtok)" "$(calc "$(s energy_kwh) / $tok * 1e6")" 1e-12 "kwh_per_mtok = energy / Mtokens"
ok_near "$(s gco2e_per_mtok)" "$(calc "$(s carbon_kg) * 1000 / $tok * 1e6")" 1e-12 \
	"gco2e_per_mtok = carbon x 1000 / Mtokens"

# --- root attributes ---------------------------------------------------------
ok_eq "$(h5attr "$tmp/a.h5" /seed)" 1 "root attribute seed = 1 (run.seed)"
ok_eq "$(h5attr "$tmp/a.h5" /trainsim_version)" "$("$TRAINSIM" --version | sed 's/^trainsim //')" \
	"root attribute trainsim_version = trainsim --version"
h5dump -w 0 -a /scenario "$tmp/a.h5" | grep -q 'hidden = 12288'
ok $? "root attribute scenario holds the resolved settings (hidden = 12288)"

# --- /events, consistent with the summary's counts --------------------------
events "$tmp/a.h5" >"$tmp/ev"
n() { awk -v k="$1" '$2 ~ k { c++ } END { print c + 0 }' "$tmp/ev"; }
ok_eq "$(n '^checkpoint_end$')" "$(s checkpoints)" "/events: one checkpoint_end a checkpoint"
ok_eq "$(n '^checkpoint_start$')" "$(s checkpoints)" "/events: one checkpoint_start a checkpoint"
ok_eq "$(n '^failure_')" "$(s failures)" "/events: one failure_* row a failure"
ok_eq "$(n '^restart_end$')" "$(s restarts)" "/events: one restart_end a restart"
ok_near "$(awk '$2 == "run_end" { print $1 }' "$tmp/ev")" "$dur" 1e-12 "/events: run_end at duration_s"
sort -s -g -k1,1 "$tmp/ev" | cmp -s - "$tmp/ev"; ok $? "/events in time order"

# --- /timeseries ---------------------------------------------------------
n0=$(series_len "$tmp/a.h5" time_s); same=0
for v in tokens energy_kwh it_energy_kwh cost_usd carbon_kg embodied_carbon_kg lost_work_s; do
	[ "$(series_len "$tmp/a.h5" $v)" = "$n0" ] || same=1
done
ok $same "time series of equal length ($n0 samples)"
# A sample every 3600 s from 0, and one at the end.
ok_eq "$n0" "$(awk -v d="$dur" 'BEGIN { printf "%d", int(d / 3600) + 2 }')" \
	"samples = floor(duration / 3600 s) + 2 (from 0, and the end)"
series "$tmp/a.h5" time_s >"$tmp/t"
awk 'NR == 1 { bad = $1 != 0 } NR > 1 && $1 <= p { bad = 1 } { p = $1 } END { exit bad }' "$tmp/t"
ok $? "time_s starts at 0 and increases"
awk '{ t[NR] = $1 } END { for (j = 2; j < NR; j++) if (t[j] - t[j - 1] != 3600) bad = 1
	exit bad }' "$tmp/t"
ok $? "time_s steps by output.sample_interval_s = 3600 (but for the last sample)"
ok_near "$(tail -1 "$tmp/t")" "$dur" 1e-12 "time_s ends at duration_s"
# Tokens roll back to the last checkpoint at a failure: at most one fall a failure.
series "$tmp/a.h5" tokens >"$tmp/v"
awk 'NR > 1 && $1 < p { n++ } { p = $1 } END { print n + 0 }' "$tmp/v" >"$tmp/falls"
[ "$(cat "$tmp/falls")" -le "$(s failures)" ] && near "$(tail -1 "$tmp/v")" "$tok" 1e-12
ok $? "tokens series ends at the summary's tokens, falling $(cat "$tmp/falls") times (<= failures)"
for v in energy_kwh:energy_kwh it_energy_kwh:it_energy_kwh cost_usd:cost_usd carbon_kg:carbon_kg \
	embodied_carbon_kg:embodied_carbon_kg lost_work_s:lost_work_s; do
	series "$tmp/a.h5" "${v%%:*}" >"$tmp/v"
	awk 'NR > 1 && $1 < p { bad = 1 } { p = $1 } END { exit bad }' "$tmp/v" &&
		near "$(tail -1 "$tmp/v")" "$(s "${v#*:}")" 1e-12
	ok $? "cumulative ${v%%:*} never decreases and ends at the summary's ${v#*:}"
done

# --- determinism -----------------------------------------------------------
"$TRAINSIM" -q -o "$tmp/b.h5" scenarios/175b.cfg
cmp -s "$tmp/a.h5" "$tmp/b.h5"; ok $? "same scenario and seed: byte-identical HDF5"
"$TRAINSIM" -q --seed 2 -o "$tmp/c.h5" scenarios/175b.cfg
! cmp -s "$tmp/a.h5" "$tmp/c.h5"; ok $? "another seed: another run"

# --- overrides and the command line -------------------------------------------
"$TRAINSIM" -q --json -s run.tokens=1e9 -s failures.enabled=false scenarios/tiny.cfg -o "$tmp/t.h5" >"$tmp/t.json"
# 1e9 tokens / (256 x 2048 tokens per iteration) = 1907.3 -> 1908 iterations.
ok_eq "$(json "$tmp/t.json" iterations)" 1908 "-s run.tokens=1e9 gives 1908 iterations"
ok_eq "$(json "$tmp/t.json" failures)" 0 "-s failures.enabled=false: no failures"

(cd "$tmp" && "$TRAINSIM" -q "$SRCDIR/scenarios/tiny.cfg") && [ -f "$tmp/tiny.h5" ]
ok $? "default output: base name + .h5 in the current directory"

"$TRAINSIM" --check scenarios/175b.cfg >"$tmp/check" 2>&1 && grep -q "^parameters" "$tmp/check" &&
	grep -q "hidden = 12288" "$tmp/check"
ok $? "--check prints the resolved scenario and derived figures"
"$TRAINSIM" --check -s model.layers=48 -s parallel.pp=8 scenarios/175b.cfg | grep -q "layers = 48"
ok $? "--check shows overrides"
# Which attention runs (models/attn_impl.h): Megatron-Core's "te" is cuDNN
# on an H100, whose law is the measured FA3-class kernel; flash2 on A100
"$TRAINSIM" --check -s 'training.stack="megatron_core"' -s 'cluster.gpu="h100_sxm"' \
	scenarios/175b.cfg 2>/dev/null | grep -q "^attention  *cudnn (te: .*h100_sxm's law is flash3's"
ok $? "--check names the attention kernel: te resolves to cudnn on H100"
"$TRAINSIM" --check -s 'training.stack="megatron_core"' scenarios/175b.cfg 2>/dev/null |
	grep -q "^attention  *flash2 (te: .*a100_80gb's law is flash2's"
ok $? "--check: te resolves to flash2 on A100"
# The GEMMs' datatype and FP8 recipe (bf16 on A100; MXFP8 on B200 at the
# catalog's 1.051x, TE's GEMM-profiling page)
"$TRAINSIM" --check scenarios/175b.cfg 2>/dev/null | grep -q "^precision  *bf16 GEMMs (312 TFLOP/s"
ok $? "--check: bf16 GEMMs at the A100's 312 TFLOP/s"
"$TRAINSIM" --check -s 'cluster.gpu="b200"' -s 'parallel.dtype="fp8"' -s 'parallel.fp8_recipe="mxfp8"' \
	scenarios/tiny.cfg 2>/dev/null |
	grep -q "^precision  *fp8 GEMMs, MXFP8 block scaling (4500 TFLOP/s dense peak); 1.051x"
ok $? "--check: MXFP8 on B200, its GEMMs at 1.051x per-tensor FP8's"
# ZeRO's sharding: tiny.cfg at pp 1 has dp 8; hybrid groups of 2
"$TRAINSIM" --check -s parallel.pp=1 -s parallel.zero_stage=3 -s parallel.zero_shard_ranks=2 \
	scenarios/tiny.cfg 2>/dev/null |
	grep -q "^zero  *stage 3, sharded over 2 of 8 data-parallel ranks (hybrid); weights gathered a layer at a time"
ok $? "--check names hybrid ZeRO-3 sharding: 2 of 8 ranks, gathered ahead"
# The experts' spread: tiny.cfg (16 GPUs, tp 2, pp 2: dp 4) with 8 experts
# over ep 2, whole (expert_tp 1): 4 a GPU, EP ranks 1 apart, 2 x 4 / 2 = 4
# replicas of each
"$TRAINSIM" --check -s model.moe.experts=8 -s parallel.ep=2 -s parallel.expert_tp=1 \
	-s parallel.sequence_parallel=true scenarios/tiny.cfg 2>/dev/null |
	grep -q "^experts  *4 per GPU (ep 2, expert_tp 1); an EP group's ranks 1 apart; 4 data-parallel replicas of each"
ok $? "--check names the experts' spread: 4 a GPU, ranks 1 apart, 4 replicas"
"$TRAINSIM" --help | grep -q "usage: trainsim"; ok $? "--help"
"$TRAINSIM" --version | grep -q "^trainsim [0-9]"; ok $? "--version"
"$TRAINSIM" --schema | grep -q "model.layers"; ok $? "--schema lists settings"
