#!/bin/sh
# Every setting is live: each key `trainsim --schema` lists is perturbed on
# a small scenario where it matters, and some output must change (the
# summary, /step, the time series, the events, or the exit status and
# message when the new value is refused).  Numbers are scaled by 1.5 (0
# becomes 1), booleans flipped, enums moved to another choice; the table
# below gives the context and value where that rule does not fit, and the
# allow-list names the keys that change nothing on purpose, each with its
# reason.  A new key either changes an output or is listed.
set -u
. "$SRCDIR/tests/tap.sh"

# Scenarios: T = scenarios/tiny.cfg (step model, 2 nodes); F =
# scenarios/finops-h100.cfg (formula model, a reserved and a spot pool,
# region us_virginia, traces, a budget).  A key that only matters in
# context (a spot setting, a ZeRO bucket, a dragonfly's shape) runs with
# the overrides that make the context, on both sides of the comparison.
T=scenarios/tiny.cfg
F=scenarios/finops-h100.cfg
# Overrides that make a context (named in the table's third column).
FAIL='-s failures.per_node_per_1000_days=20000'
SPOTX="-s 'pools.od.class=\"on_demand\"' -s pools.od.nodes=1 -s 'pools.sp.class=\"spot\"' -s pools.sp.nodes=1 -s pools.sp.preemption_per_node_hour=2 -s cost.gpu_hour_usd=5"
OWN="-s 'cost.mode=\"owned\"'"
FORM="-s 'training.iteration_model=\"formula\"'"
# the formula model at a set training level (idle + 0.8 (TDP - idle)): TDP
# matters there; the default level, from the kernels' work, does not
FORMB="$FORM -s power.gpu_busy_fraction=0.8"
STO="-s storage_types.t.write_bw_per_node_gbyte_s=0.5 -s storage_types.t.read_bw_per_node_gbyte_s=1 -s 'training.checkpoint.storage=\"t\"'"
TIER='-s storage.tiers.s3.usd_per_gb_month=0.023'
N64='-s cluster.gpus=64 -s parallel.tp=1 -s parallel.pp=1 -s parallel.micro_batch=4'
BIG='-s cluster.gpus=256 -s parallel.tp=1 -s parallel.pp=1 -s parallel.micro_batch=1 -s parallel.global_batch=512 -s network.fat_tree.rail_optimized=false'
DF64="$N64 -s 'network.topology=\"dragonfly\"'"
DFX="-s cluster.gpus=256 -s parallel.tp=1 -s parallel.pp=1 -s parallel.micro_batch=1 -s parallel.global_batch=512 -s 'network.topology=\"dragonfly\"' -s network.dragonfly.p=4 -s network.dragonfly.a=8 -s network.dragonfly.h=4"
H100="-s 'cluster.gpu=\"h100_sxm\"' -s 'parallel.dtype=\"fp8\"'"
B200MX="-s 'cluster.gpu=\"b200\"' -s 'parallel.dtype=\"fp8\"' -s 'parallel.fp8_recipe=\"mxfp8\"'"
B200NV="-s 'cluster.gpu=\"b200\"' -s 'parallel.dtype=\"fp8\"' -s 'parallel.fp8_recipe=\"nvfp4\"'"
H100BLK="-s 'cluster.gpu=\"h100_sxm\"' -s 'parallel.dtype=\"fp8\"' -s 'parallel.fp8_recipe=\"blockwise\"'"
MOE='-s model.moe.experts=8'
MLA='-s model.mla.kv_lora_rank=128 -s model.mla.qk_nope_head_dim=64 -s model.mla.qk_rope_head_dim=32 -s model.mla.v_head_dim=64'

# key | scenario | context | value ('' = the rule) | path ('' = concrete())
cat >"$tmp/table" <<'EOF'
run.seed|T|FAIL||
run.max_days|T||0.01|
model.layers|T||24|
model.hidden|T||1536|
model.heads|T||24|
model.seq_len|T||1024|
model.vocab|T||32000|
run.tokens|T||1e9|
cluster.gpu|T||"h100_sxm"|
cluster.gpus|T||32|
cluster.gpus_per_node|T||4|
parallel.global_batch|T||512|
parallel.tp|T||4|
parallel.pp|T||4|
parallel.micro_batch|T||2|
parallel.virtual_stages|T|-s 'parallel.schedule="interleaved"'|4|
parallel.zero_stage|T|-s parallel.pp=1|1|
parallel.adam_moments|T|||
parallel.adam_master|T|-s parallel.distributed_optimizer=true|"remainders"|
parallel.dtype|T|-s 'cluster.gpu="h100_sxm"'|"fp8"|
parallel.fp8_params|T|H100|true|
parallel.fp8_recipe|T|H100|"current"|
parallel.nvfp4_hadamard|T|B200NV||
parallel.tp_comm_overlap|T|-s parallel.sequence_parallel=true||
parallel.overlap_param_gather|T|-s parallel.distributed_optimizer=true||
parallel.align_param_gather|T|-s 'parallel.schedule="interleaved"' -s parallel.virtual_stages=2 -s parallel.distributed_optimizer=true -s parallel.overlap_param_gather=true|true|
parallel.check_for_nan_in_grad|T|||
parallel.cp_comm|T|-s parallel.cp=2||
model.mla.q_lora_rank|T|MLA|256|
pools.*.term_days|F||365|
gpus.*.stream.add|T|-s model.dropout=false -s 'training.stack="pytorch_eager"'||
parallel.zero_prefetch_mb|T|-s parallel.pp=1 -s parallel.zero_stage=3||
parallel.zero3_fetch|T|-s parallel.pp=1 -s parallel.zero_stage=3|"sync_per_tensor"|
parallel.zero_contiguous_grads|T|-s parallel.pp=1 -s parallel.zero_stage=2||
parallel.zero_shard_ranks|T|-s parallel.pp=1 -s parallel.zero_stage=3|2|
cost.commitments|F|-s pools.base.term_days=365||
model.mla.kv_lora_rank|T|MLA|256|
model.mla.qk_nope_head_dim|T|MLA|128|
model.mla.qk_rope_head_dim|T|MLA|64|
model.mla.v_head_dim|T|MLA|128|
model.moe.top_k|T|MOE|4|
model.moe.shared_experts|T|MOE|1|
model.moe.ffn_hidden|T|MOE|1024|
model.moe.dense_layers|T|MOE|2|
model.moe.capacity_factor|T|MOE|1|
model.moe.imbalance|T|MOE|2|
parallel.expert_tp|T|MOE -s parallel.sequence_parallel=true|1|
model.moe.groups|T|MOE -s parallel.pp=1 -s parallel.ep=8 -s 'parallel.ep_dispatcher="deepep"' -s model.moe.groups=2 -s model.moe.group_topk=2|4|
model.moe.group_topk|T|MOE -s parallel.pp=1 -s parallel.ep=8 -s 'parallel.ep_dispatcher="deepep"' -s model.moe.groups=4|2|
parallel.ep_dispatcher|T|MOE -s parallel.pp=1 -s parallel.ep=8||
parallel.ep_permute_fused|T|MOE -s parallel.pp=1 -s parallel.ep=8 -s 'parallel.ep_dispatcher="hybridep"'||
parallel.ep_dispatcher_sms|T|MOE -s parallel.pp=1 -s parallel.ep=8 -s 'parallel.ep_dispatcher="deepep"' -s 'parallel.ep_overlap="dualpipe"'|40|
parallel.ep_fp8_dispatch|T|MOE -s parallel.pp=1 -s parallel.ep=8 H100||
parallel.moe_router_padding|T|MOE -s parallel.pp=1 -s parallel.ep=8 H100||
parallel.moe_gemm|T|MOE -s training.host_us_per_kernel=5000|"grouped"|
parallel.moe_act_fused|T|MOE|true|
nodes.*.host_op_scale|T||100|nodes.dgx_a100.host_op_scale
parallel.recompute_modules|T|-s 'parallel.recompute="selective"'|"layernorm,mlp"|
parallel.zero_bucket_mb|T|N64 -s parallel.zero_stage=2|1|
parallel.rampup_start_batch|T|-s parallel.rampup_start_batch=64 -s parallel.rampup_increment=64 -s parallel.rampup_samples=768|128|
parallel.rampup_increment|T|-s parallel.rampup_start_batch=64 -s parallel.rampup_increment=64 -s parallel.rampup_samples=768|192|
parallel.rampup_samples|T|-s parallel.rampup_start_batch=64 -s parallel.rampup_increment=64 -s parallel.rampup_samples=768|76800|
training.efficiency|T|FORM||
training.host_us_per_kernel|T||5000|
parallel.cuda_graph_scope|T|-s training.host_us_per_kernel=5000|"full_iteration"|
training.launch_blocking|T|||
training.adam_foreach|T|-s 'training.stack="pytorch_eager"'||
training.adam_impl|T|-s 'training.stack="pytorch_eager"'|"loop"|
training.loss_kernel|T|-s 'training.stack="pytorch_eager"'|"xentropy"|
training.metric_cross_entropies|T||2|
parallel.zero_reduce_fp32|T|N64 -s parallel.zero_stage=3||
power.gpu_busy_fraction|T|FORM|0.5|
gpus.*.peak_bf16_tflops|T|FORM|400|
gpus.*.peak_fp8_tflops|T|H100|1500|gpus.h100_sxm.peak_fp8_tflops
gpus.*.gemm_fp8_tflops|T|H100|900|gpus.h100_sxm.gemm_fp8_tflops
gpus.*.gemm_mxfp8_ratio|T|B200MX|1.2|gpus.b200.gemm_mxfp8_ratio
gpus.*.gemm_nvfp4_ratio|T|B200NV|0.7|gpus.b200.gemm_nvfp4_ratio
gpus.*.gemm_fp8_block_ratio|T|H100BLK|1.5|gpus.h100_sxm.gemm_fp8_block_ratio
gpus.*.calibration|T||"none"|
gpus.*.hbm_gb|T|-s gpus.a100_80gb.hbm_mib=0|1|
gpus.*.hbm_mib|T||1|
gpus.*.hbm_bw_gbyte_s|T||1000|
gpus.*.tdp_w|T|FORMB|500|
cluster.node|T||"generic"|
nodes.*.gpu|T||"h100_sxm"|nodes.dgx_a100.gpu
gpus.*.idle_w|T||80|
gpus.*.nvlink|T||"nvlink4"|
gpus.*.kernels|T||"kernels/h200_sxm"|
gpus.*.gemm_tflops|T||300|
gpus.*.gemm_wave_us|T||3|
gpus.*.gemm_launch_us|T||9|
gpus.*.attn_fwd_tflops|T|-s parallel.flash_attention=true|300|
gpus.*.attn_fwd_block_us|T|-s parallel.flash_attention=true|1|
gpus.*.attn_bwd_tflops|T|-s parallel.flash_attention=true|300|
gpus.*.attn_bwd_block_us|T|-s parallel.flash_attention=true|1|
parallel.attention_kernel|T|-s parallel.flash_attention=true|"triton"|
gpus.*.attn_kernel|T|-s parallel.flash_attention=true|"flash3"|
gpus.*.stream.copy|T||0.5|
gpus.*.stream.layernorm|T||0.3|
gpus.*.stream.gelu|T|-s 'training.stack="pytorch_eager"'|0.2|
gpus.*.stream.dropout_add|T|-s 'training.stack="pytorch_eager"'|0.1|
gpus.*.stream.softmax|T||0.3|
gpus.*.stream.adam|T||0.5|
gpus.*.validated_band.*|T||0.5|gpus.a100_80gb.validated_band.megatron_lm_2021
gpus.*.validated_band_moe.*|T|MOE|0.5|gpus.a100_80gb.validated_band_moe.megatron_lm_2021
gpus.*.band|T|-s 'training.stack="megatron_core"'||
spot.policy|T|SPOTX||
spot.batch|T|SPOTX -s 'spot.policy="elastic"'||
training.checkpoint.on_notice|T|SPOTX||
training.checkpoint.interval_iters|T|-s 'training.checkpoint.policy="iterations"'||
training.checkpoint.snapshot_bw_gbyte_s|T|-s 'training.checkpoint.mode="async"'||
training.checkpoint.drain_slowdown|T|-s 'training.checkpoint.mode="async"'||
training.checkpoint.storage|T|-s storage_types.t.write_bw_per_node_gbyte_s=0.5 -s storage_types.t.read_bw_per_node_gbyte_s=1|"t"|
failures.gpu_per_1000_gpu_days|T||20000|
failures.nic_per_1000_node_days|T||20000|
failures.software_per_1000_node_days|T||20000|
failures.distribution|T|FAIL||
failures.weibull_shape|T|FAIL -s 'failures.distribution="weibull"'||
failures.detect_s|T|FAIL||
failures.restart_s|T|FAIL||
failures.repair_s|T|FAIL -s failures.spares=0 -s run.max_days=1||
failures.trace|T||"traces/failures-example.csv"|
gc.interval_s|T|-s 'gc.mode="auto"'||
gc.pause_s|T|-s 'gc.mode="auto"'||
gc.pause_distribution|T|-s 'gc.mode="auto"'||
gc.every_iters|T|-s 'gc.mode="manual"'||
training.eval_interval_iters|T|||
training.eval_iters|T|-s training.eval_interval_iters=10||
network.scale_out_link|T||"ib_ndr"|
network.pcie_link|T|N64 -s network.nics_per_node=2|"opa_100"|
network.fat_tree.oversubscription|T|BIG|[4.0, 4.0]|
network.fat_tree.ecmp|T|BIG||
network.collective.algo|T|N64|"tree"|
links.*.nvls_efficiency|T||0.9|links.nvlink3.nvls_efficiency
network.collective.channels|T|N64|1|
network.collective.same_nic|T|N64||
network.collective.tree_channel_busbw_Bps|T|N64 -s 'network.collective.algo="tree"'|[2e9, 2e9, 2e9]|
network.placement|T||[1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]|
network.dragonfly.p|T|DFX|8|
network.dragonfly.a|T|DFX|16|
network.dragonfly.h|T|DFX|8|
network.dragonfly.g|T|DFX|20|
network.dragonfly.arrangement|T|DF64||
network.dragonfly.routing|T|DF64|"minimal"|
storage_types.*.write_bw_per_node_gbyte_s|T|STO|0.1|
storage_types.*.read_bw_per_node_gbyte_s|T|STO FAIL|0.1|
storage_types.*.write_bw_max_gbyte_s|T|STO|0.2|
storage_types.*.read_bw_max_gbyte_s|T|STO FAIL|0.2|
storage_types.*.latency_s|T|STO|5|
storage.tiers.*.usd_per_gb_month|T|TIER|0.1|
storage.tiers.*.w_per_tb|T|TIER|50|
storage.tiers.*.retain|T|TIER|1|
storage.tiers.*.usd_per_gb_written|T|TIER||
storage_types.*.usd_per_gb_month|T|STO||
storage_types.*.usd_per_gb_written|T|STO||
training.checkpoint.keep|T|STO -s storage_types.t.usd_per_gb_month=1||
training.checkpoint.minimize|T|STO -s cost.gpu_hour_usd=3.6 -s storage_types.t.usd_per_gb_written=1 -s 'training.checkpoint.policy="young"'||
cost.billing_increment_s|T||3600|
cost.billing_minimum_s|T||7200|
cost.owned.server_usd|T|OWN||
cost.owned.network_usd_per_node|T|OWN||
cost.owned.service_life_years|T|OWN -s cost.owned.server_usd=300000||
cost.owned.opex_usd_per_node_hour|T|OWN||
cost.electricity_usd_per_kwh|T|OWN||
cost.electricity_trace|T|OWN|"../tests/acct/elec-step.csv"|
carbon.basis|T|-s carbon.market_g_per_kwh=100|"market"|
carbon.grid_trace|T||"../tests/acct/grid-4h.csv"|
carbon.trace_column|T|-s 'carbon.grid_trace="../tests/acct/grid-4h.csv"'|"direct"|
pools.*.nodes|F||20|
pools.*.instance|F|-s 'pools.base.class="on_demand"'|"p4d_24xlarge"|
pools.*.capacity_trace|F||"traces/skypilot-4node-us-east-2a.json"|
pools.*.spot_price_trace|F||""|
pools.*.spot_instance_type|F||"p4d.24xlarge"|
pools.*.spot_zone|F||"us-east-1b"|
instances.*.gpu|F||"a100_80gb"|
instances.*.gpus|F||4|
instances.*.regions|F||"us_oregon"|
instances.*.capacity_block_regions|F|-s 'pools.base.class="capacity_block"'|"us_oregon"|
regions.*.grid_g_per_kwh|F|-s 'carbon.grid_trace=""'|500|
regions.*.pue|F||1.3|
regions.*.electricity_usd_per_kwh|F|-s 'cost.mode="owned"' -s 'cost.electricity_trace=""'|0.2|
region|F||"us_oregon"|
power.pue_trace|F||"traces/us-grid-2024-05.csv"|
run.start_utc|F||"2024-05-10T00:00:00Z"|
budget.alert_at|F||[0.1]|
budget.stop|F|-s budget.cost_usd=50000||
EOF

# Keys that change no output, and why.
cat >"$tmp/allow" <<'EOF'
model.name|a label (the report's title), no figure depends on it
regions.*.date|a label: when the preset's figures held
regions.*.source|a label: where the preset's figures come from
instances.*.date|a label: when the catalog's prices held
instances.*.source|a label: where the catalog's prices come from
gpus.*.source|a label: where the catalog's GPU figures come from (trainsim list gpus)
links.*.source|a label: where the catalog's link figures come from (trainsim list links)
storage_types.*.source|a label: where the catalog's storage figures come from (trainsim list storage)
nodes.*.source|a label: where the catalog's node figures come from (trainsim list nodes)
run.full_fidelity|checks the fast path: one event per iteration gives the same run by design (tests/disrupt-t)
EOF

# Where a wildcard key points in its context.
concrete() {
	case "$1" in
	gpus.\*.*) echo "gpus.a100_80gb.${1#gpus.\*.}" ;;
	links.\*.*) echo "links.ib_hdr.${1#links.\*.}" ;;
	pools.\*.capacity_trace|pools.\*.spot_*) echo "pools.burst.${1#pools.\*.}" ;;
	pools.\*.*) echo "pools.base.${1#pools.\*.}" ;;
	instances.\*.*) echo "instances.p5_48xlarge.${1#instances.\*.}" ;;
	regions.\*.*) echo "regions.us_virginia.${1#regions.\*.}" ;;
	storage_types.\*.*) echo "storage_types.t.${1#storage_types.\*.}" ;;
	storage.tiers.\*.*) echo "storage.tiers.s3.${1#storage.tiers.\*.}" ;;
	*) echo "$1" ;;
	esac
}

# The rule: x 1.5 (0 -> 1, -1 -> 3), a flipped boolean, another choice.
perturb() {	# type range default
	case "$1" in
	bool) [ "$3" = true ] && echo false || echo true ;;
	enum) echo "$2" | tr '|' '\n' | grep -vx "$3" | head -1 | sed 's/.*/"&"/' ;;
	int) awk -v d="$3" -v r="$2" 'BEGIN { split(r, m, /\.\./); v = d == 0 ? 1 : d == -1 ? 3 : int(d * 1.5 + 0.5);
		if (v > m[2] + 0) v = int(d / 2); print v }' ;;
	float) awk -v d="$3" -v r="$2" 'BEGIN { split(r, m, /\.\./); v = d == 0 ? 1 : d == -1 ? 0.5 : d * 1.5;
		if (v > m[2] + 0) v = d / 1.5; printf "%.6g\n", v }' ;;
	*) echo "" ;;
	esac
}

# What a run gives: exit status, message and summary (quick), and /step,
# the time series and the events (full: dumped only when the quick ones
# are the same).  run ARGS... leaves $work/q and $work/d.h5 ($work: the
# shard's scratch folder).
run() {
	"$TRAINSIM" -q --json -o "$work/d.h5" "$@" >"$work/d.json" 2>"$work/d.err"
	{ echo "rc $?"; sed 's/^[^:]*: //' "$work/d.err"; cat "$work/d.json"; } | cksum >"$work/q"
}
full() {
	[ -f "$work/d.h5" ] && h5dump -g /step -g /timeseries -d /events "$work/d.h5" 2>/dev/null | cksum
}

# One key's check: prints its status (0 passes) and its name on one line.
check_key() {	# key type range default
	key=$1 type=$2 range=$3 def=$4
	if line=$(awk -F'|' -v k="$key" '$1 == k' "$tmp/allow"); [ -n "$line" ]; then
		echo "0 $key: allowed (${line#*|})"
		return
	fi
	ctx=T extra= val= path=
	line=$(awk -F'|' -v k="$key" '$1 == k' "$tmp/table")
	# (few processes per key: the machine's fork is the suite's cost)
	if [ -n "$line" ]; then
		IFS='|' read -r _ ctx extra val path <<-EOF
		$line
		EOF
	fi
	[ -n "$extra" ] && extra=$(echo "$extra" | awk -v FAIL="$FAIL" -v SPOTX="$SPOTX" \
		-v OWN="$OWN" -v FORM="$FORM" -v FORMB="$FORMB" -v STO="$STO" -v TIER="$TIER" \
		-v N64="$N64" -v BIG="$BIG" -v DF64="$DF64" -v DFX="$DFX" -v H100="$H100" \
		-v MOE="$MOE" -v MLA="$MLA" -v B200MX="$B200MX" -v B200NV="$B200NV" \
		-v H100BLK="$H100BLK" 'BEGIN {
			x["FAIL"] = FAIL; x["SPOTX"] = SPOTX; x["OWN"] = OWN; x["FORM"] = FORM
			x["FORMB"] = FORMB; x["STO"] = STO; x["TIER"] = TIER; x["N64"] = N64
			x["BIG"] = BIG; x["DF64"] = DF64; x["DFX"] = DFX; x["H100"] = H100
			x["MOE"] = MOE; x["MLA"] = MLA; x["B200MX"] = B200MX
			x["B200NV"] = B200NV; x["H100BLK"] = H100BLK }
		{ for (i = 1; i <= NF; i++) if ($i in x) $i = x[$i]; print }')
	[ -n "$val" ] || val=$(perturb "$type" "$range" "$def")
	if [ -z "$val" ]; then
		echo "1 $key: no perturbation for a $type (add it to the table)"
		return
	fi
	case $ctx in T) sc=$T ;; F) sc=$F ;; esac
	[ -n "$path" ] || path=$(concrete "$key")
	bkey=$work/base.$(echo "$sc $extra" | cksum | cut -d' ' -f1)
	if [ ! -f "$bkey.q" ]; then
		eval "run $extra \"\$sc\""
		cp "$work/q" "$bkey.q"
		full >"$bkey.full"
	fi
	eval "run $extra -s \"\$path=\$val\" \"\$sc\""
	if cmp -s "$work/q" "$bkey.q"; then
		full | cmp -s - "$bkey.full"
		[ $? -ne 0 ]
	fi
	echo "$? $key: $path=$val changes an output ($ctx${extra:+ with $extra})"
	rm -f "$work/d.h5"
}

# The keys run in SETTINGS_LIVE_JOBS (default: one per core) shards, each
# in its own scratch folder with its own baselines; the results are
# reported in schema order.
jobs=${SETTINGS_LIVE_JOBS:-$(nproc 2>/dev/null || echo 1)}
"$TRAINSIM" --schema | awk '{ print $1, $2, $4, $5 }' >"$tmp/schema"
echo "1..$(wc -l <"$tmp/schema")"
s=0
while [ "$s" -lt "$jobs" ]; do
	(
		work=$tmp/shard$s
		mkdir "$work" || exit 1
		i=0
		while read -r key type range def; do
			[ $((i % jobs)) -eq "$s" ] && check_key "$key" "$type" "$range" "$def" >"$tmp/res.$i"
			i=$((i + 1))
		done <"$tmp/schema"
	) &
	s=$((s + 1))
done
wait
i=0
while read -r key rest; do
	if [ -s "$tmp/res.$i" ]; then
		read -r status name <"$tmp/res.$i"
	else
		status=1 name="$key: no result"
	fi
	ok "$status" "$name"
	i=$((i + 1))
done <"$tmp/schema"
