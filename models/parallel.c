/* parallel.c -- see parallel.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/dispatch.h"
#include "models/node.h"
#include "models/cgraph.h"
#include "models/parallel.h"
#include "models/stack.h"

#define MB 1e6
#define GB 1e9

const struct cfg_setting par_settings[] = {
	{ "training.stack", CFG_ENUM, "", 0, 0, STACK_DEFAULT, STACK_CHOICES,
	  "software stack (models/stack.c): sets the defaults of the parallel.* "
	  "options it decides and which kernels run (fused or eager, flash)" },
	{ "training.host_us_per_kernel", CFG_FLOAT, "us", 0, 1e4, "15.5", NULL,
	  "CPU time the framework spends on one op it issues from Python (a "
	  "kernel, or a Transformer Engine module's call with the kernels it "
	  "launches from C++, which cost 15.5 us each beside it); a layer pass "
	  "takes at least its ops' time (models/host.h); 0: never host-bound, as "
	  "when the step replays CUDA graphs (one launch per graph: Megatron-Core "
	  "--enable-cuda-graph, torch.compile mode=\"reduce-overhead\"); "
	  "default: the stack's (15.5; megatron_core 131, from Megatron-LM's CI)" },
	{ "training.launch_blocking", CFG_BOOL, "", 0, 0, "false", NULL,
	  "CUDA_LAUNCH_BLOCKING=1 in the job's environment: every kernel launch "
	  "returns only when the kernel has run, so the host cannot run ahead and "
	  "a layer pass takes its kernels' time plus its kernels times "
	  "training.host_us_per_kernel, not the larger of the two (models/host.h; "
	  "BigScience's BLOOM ran so, tr11-176B-ml.slurm)" },
	{ "training.adam_foreach", CFG_BOOL, "", 0, 0, "true", NULL,
	  "PyTorch AMP loop (training.stack = \"pytorch_eager\"): torch.optim.AdamW's "
	  "default foreach implementation, eight passes over the fp32 state "
	  "(80 bytes per parameter); false: fused=True (28 bytes); default: the stack's" },
	{ "training.adam_impl", CFG_ENUM, "", 0, 0, "foreach", "foreach|fused|loop|composer",
	  "PyTorch AMP loop: which AdamW runs (models/eager.h); foreach and fused as "
	  "training.adam_foreach, loop: a per-tensor Python loop of the same 80 bytes "
	  "in eight kernels per tensor, launched from the host (torch.optim.AdamW "
	  "foreach=False), composer: that loop reading each tensor's step count "
	  "back from the GPU (Composer's DecoupledAdamW, llm-foundry's optimizer); "
	  "overrides training.adam_foreach; default: that setting" },
	{ "training.loss_kernel", CFG_ENUM, "", 0, 0, "torch", "torch|xentropy|te",
	  "the loss over the logits (models/compute.c).  torch: the stack's own -- "
	  "eager stacks F.cross_entropy on logits upcast to fp32 (cast, "
	  "log_softmax, nll), Megatron's its vocab-parallel cross-entropy in six "
	  "eager kernels over an fp32 copy; xentropy (eager stacks): flash-attn's "
	  "fused CrossEntropyLoss (llm-foundry's loss_fn: fused_crossentropy), one "
	  "kernel each way over the bf16 logits; te: Transformer Engine's fused "
	  "cross-entropy (Megatron-Core cross_entropy_loss_fusion with "
	  "cross_entropy_fusion_impl \"te\", as Megatron-Bridge's performance "
	  "recipes set it), two kernels forward writing an fp32 gradient, that "
	  "gradient scaled and cast back to bf16 backward" },
	{ "training.metric_cross_entropies", CFG_INT, "", 0, 16, "0", NULL,
	  "no-grad fp32 cross-entropy forwards over the logits after each "
	  "microbatch for training metrics (Composer's train metrics; llm-foundry's "
	  "MPT registers two, LanguageCrossEntropy and LanguagePerplexity); each "
	  "a cast and a log_softmax, 14 bytes per logit" },
	{ "parallel.schedule", CFG_ENUM, "", 0, 0, "1f1b", "1f1b|interleaved|deepspeed|dualpipe",
	  "pipeline schedule: 1F1B (PipeDream-flush), Megatron's interleaved 1F1B, "
	  "DeepSpeed's PipelineEngine (TrainSchedule: 1F1B in lockstep steps, "
	  "each output sent at its stage's next step by blocking send/recv; "
	  "Megatron-DeepSpeed), or DeepSeek's DualPipe (two pipelines in opposite "
	  "directions through the same ranks, each rank holding stages k and pp-1-k, "
	  "forward and backward passes of different microbatches in overlapped "
	  "pairs, weight gradients deferred into the bubbles; even pp, an even "
	  "number of microbatches, at least 2 pp)" },
	{ "parallel.virtual_stages", CFG_INT, "", 1, 1024, "1", NULL,
	  "model chunks per pipeline rank (interleaved schedule; layers/(pp*v) each)" },
	{ "parallel.sequence_parallel", CFG_BOOL, "", 0, 0, "false", NULL,
	  "Megatron sequence parallelism (norms and dropouts split over the TP group); default: the stack's" },
	{ "parallel.recompute", CFG_ENUM, "", 0, 0, "selective", "none|selective|full",
	  "activation recomputation (Korthikanti et al. 2022)" },
	{ "parallel.cuda_graph_scope", CFG_STRING, "", 0, 0, "", NULL,
	  "what the host launches as replayed CUDA graphs (models/cgraph.h): a "
	  "comma-separated list of attn, mlp, moe_router, moe_preprocess "
	  "(Megatron-Core --cuda-graph-impl transformer_engine "
	  "--cuda-graph-scope), or full_iteration (the whole step; not with a "
	  "dropless MoE); empty: none, every kernel launched by the host" },
	{ "parallel.recompute_modules", CFG_STRING, "", 0, 0, "", NULL,
	  "with recompute = \"selective\", modules also recomputed, comma-separated "
	  "(Megatron-Core --recompute-modules): layernorm, mla_up_proj, mlp, moe, "
	  "moe_act, shared_experts (core_attn: the attention core, what selective "
	  "always redoes); their outputs are not stored and are rebuilt in the "
	  "backward; \"\": none" },
	{ "parallel.zero_stage", CFG_INT, "", 0, 3, "0", NULL,
	  "ZeRO/FSDP stage (0: plain data parallelism; with pipeline stages at "
	  "most 2, 1 in DeepSpeed's engine); default: the stack's" },
	{ "parallel.distributed_optimizer", CFG_BOOL, "", 0, 0, "false", NULL,
	  "Megatron distributed optimizer: reduce-scatter gradients, all-gather weights; default: the stack's" },
	{ "parallel.overlap_grad_reduce", CFG_BOOL, "", 0, 0, "true", NULL,
	  "start gradient collectives bucket by bucket during the last backward; default: the stack's" },
	{ "parallel.flash_attention", CFG_BOOL, "", 0, 0, "false", NULL,
	  "fused flash-attention kernel instead of bmm/softmax/dropout/bmm; default: the stack's" },
	{ "parallel.attention_kernel", CFG_ENUM, "", 0, 0, "flash2", ATTN_IMPL_CHOICES,
	  "which attention kernel runs (models/attn_impl.c): flash2 (FlashAttention-2, "
	  "PyTorch SDPA's flash backend), flash3 (FlashAttention-3, Hopper only), triton "
	  "(flash_attn_triton.py, llm-foundry's attn_impl: triton), cudnn (cuDNN "
	  "fused attention), te (Transformer Engine's pick: cudnn on Hopper and "
	  "newer, flash2 before), each at its published speed relative to the "
	  "kernel the GPU's law describes (gpus.*.attn_kernel), or unfused "
	  "(bmm/softmax/dropout/bmm); default: the stack's flash kernel (te for "
	  "megatron_core, else flash2) when parallel.flash_attention (or the "
	  "stack) says flash, else unfused" },
	{ "parallel.grad_accum_fusion", CFG_BOOL, "", 0, 0, "false", NULL,
	  "accumulate weight gradients into fp32 main_grad inside the GEMM "
	  "(Megatron-LM 2022+) instead of a separate add per microbatch; default: the stack's" },
	{ "parallel.grad_reduce_fp32", CFG_BOOL, "", 0, 0, "false", NULL,
	  "gradients accumulated and reduced in fp32 (Megatron-LM forces "
	  "--accumulate-allreduce-grads-in-fp32 with bf16; PyTorch AMP's .grad is "
	  "fp32); false: in the weights' 2 bytes (fp16 runs, --grad-reduce-in-bf16); "
	  "ZeRO/FSDP: parallel.zero_reduce_fp32; default: the stack's" },
	{ "parallel.zero_reduce_fp32", CFG_BOOL, "", 0, 0, "false", NULL,
	  "ZeRO/FSDP gradients reduce-scattered in fp32 (4 bytes): PyTorch FSDP "
	  "MixedPrecision(reduce_dtype=torch.float32) beside bf16 params, Composer's "
	  "fsdp_config mixed_precision: DEFAULT; FSDP then casts each unit's "
	  "unsharded bf16 gradient to fp32 first (models/eager.h); false: in the "
	  "weights' 2 bytes (DeepSpeed's default, FSDP's reduce_dtype = param_dtype)" },
	{ "parallel.tp_comm_overlap", CFG_BOOL, "", 0, 0, "false", NULL,
	  "overlap tensor-parallel all-gathers and reduce-scatters with the GEMMs "
	  "(Transformer Engine; needs sequence parallelism); default: the stack's" },
	{ "parallel.tp_async_allreduce", CFG_BOOL, "", 0, 0, "false", NULL,
	  "in backward, a column-parallel layer's input-gradient all-reduce (reduce-"
	  "scatter with sequence parallelism) runs under its weight-gradient GEMM "
	  "(Megatron-LM --async-tensor-model-parallel-allreduce, on since 2021-09); "
	  "default: the stack's" },
	{ "parallel.overlap_p2p_comm", CFG_BOOL, "", 0, 0, "false", NULL,
	  "pipeline sends and receives run beside the compute (Megatron-Core's "
	  "--overlap-p2p-communication, interleaved schedule); false: a stage waits "
	  "for its send before its next pass (Megatron-LM's 1F1B and DeepSpeed's "
	  "pipeline engine wait on each p2p); default: the stack's" },
	{ "parallel.overlap_param_gather", CFG_BOOL, "", 0, 0, "false", NULL,
	  "distributed optimizer: the weight all-gather after Adam runs under the "
	  "next forward (Megatron-Core --overlap-param-gather; default: the stack's)" },
	{ "parallel.check_for_nan_in_grad", CFG_BOOL, "", 0, 0, "false", NULL,
	  "Megatron DDP reads each gradient bucket's norm before its collective "
	  "and waits for it on the host (DistributedDataParallelConfig."
	  "check_for_nan_in_grad; Megatron-LM's --no-check-for-nan-in-loss-and-"
	  "grad turns it off): a norm kernel over the bucket and a GPU idle for "
	  "the host's round trip, bucket by bucket in the last backward; "
	  "default: the stack's (megatron_core: on; NeMo's and Megatron-Bridge's "
	  "benchmark scripts set it off; the default holds only where Megatron's DDP "
	  "does); needs Megatron's DDP (a Megatron stack, zero_stage 0)" },
	{ "parallel.align_param_gather", CFG_BOOL, "", 0, 0, "false", NULL,
	  "interleaved schedule, overlap_param_gather: each model chunk's weight "
	  "all-gather goes as one, the first two at the step's start, chunk c's "
	  "when chunk c-1 starts its first forward (Megatron-Core --align-param-"
	  "gather, with or without --overlap-param-gather-with-optimizer-step); "
	  "false: bucket by bucket as the forward reaches them" },
	{ "parallel.p2p_scatter_gather", CFG_BOOL, "", 0, 0, "true", NULL,
	  "each TP rank sends 1/tp of a pipeline activation and the receivers "
	  "all-gather it on NVLink (Megatron-LM --scatter-gather-tensors-in-pipeline, "
	  "the default since 2021; DeepSpeed's pipeline engine partitions it the same "
	  "way); false: every TP rank sends all of it (--no-scatter-gather-tensors-"
	  "in-pipeline).  Sequence parallelism splits it anyway; default: the stack's" },
	{ "parallel.dtype", CFG_ENUM, "", 0, 0, "bf16", "bf16|fp8|fp16",
	  "GEMM datatype (peak taken from the GPU catalog); fp16 runs at bf16's rates "
	  "and differs only where the stack keeps gradients in it (megatron_deepspeed)" },
	{ "parallel.fp8_params", CFG_BOOL, "", 0, 0, "false", NULL,
	  "FP8 weights only (NeMo's fp8_params, TE fp8_model_init): no bf16 copy "
	  "beside Transformer Engine's FP8 weight and its transpose; needs dtype fp8" },
	{ "parallel.fp8_recipe", CFG_ENUM, "", 0, 0, "delayed", "delayed|current|mxfp8|nvfp4|blockwise",
	  "Transformer Engine's FP8 scaling: delayed (scales from the amax history; "
	  "Megatron-Core and NeMo's default), current (per tensor from its own amax: "
	  "NeMo's 'tensorwise', MLPerf v5.1's; an amax pass over each tensor before "
	  "its cast, and the LayerNorm no longer writes FP8) or mxfp8 (one E8M0 "
	  "scale per 32 elements, TE's MXFP8BlockScaling: Blackwell's block-scaled "
	  "GEMMs at the GPU's gemm_mxfp8_ratio, each tensor quantized once into "
	  "both its row- and column-wise copies, no amax pass) or nvfp4 (TE's "
	  "NVFP4BlockScaling, Megatron-Core --fp4-recipe nvfp4: 4-bit E2M1 with an "
	  "E4M3 scale per 16 elements and a tensor scale, Blackwell's FP4 GEMMs at "
	  "the GPU's gemm_nvfp4_ratio, an amax pass then one quantization into both "
	  "copies) or blockwise (TE's Float8BlockScaling, Megatron-Core --fp8-recipe "
	  "blockwise, Megatron-Bridge's fp8_sc: an FP32 scale per 1 x 128 of inputs "
	  "and gradients and per 128 x 128 of weights, Hopper's cuBLAS block-scaled "
	  "GEMMs at the GPU's gemm_fp8_block_ratio, one quantization into both "
	  "copies); needs dtype fp8 (the low-precision GEMMs)" },
	{ "parallel.nvfp4_hadamard", CFG_BOOL, "", 0, 0, "true", NULL,
	  "NVFP4's random Hadamard transforms of the inputs' and gradients' "
	  "column-wise (wgrad) copies, each then needing its own amax pass "
	  "(Transformer Engine's default; false: NVTE_NVFP4_DISABLE_RHT=1, as "
	  "MLPerf Training v5.1's NVFP4 runs set it); needs fp8_recipe nvfp4" },
	{ "parallel.ep_dispatcher", CFG_ENUM, "", 0, 0, "alltoall", "alltoall|deepep|hybridep",
	  "how an MoE layer moves tokens to their experts (dispatch.h): alltoall "
	  "(Megatron-Core's default, one copy per token and expert), deepep "
	  "(DeepEP: once per destination node over the scale-out fabric, then "
	  "once per destination GPU over NVLink; Megatron-Core's flex dispatcher, "
	  "DeepSeek-V3) or hybridep (NVIDIA's HybridEP in the flex dispatcher: "
	  "DeepEP's traffic, after an all-gather of every rank's routing map "
	  "that each dispatch's metadata preprocessing needs; with "
	  "parallel.ep_permute_fused its permute is fused into its kernels)" },
	{ "parallel.ep_permute_fused", CFG_BOOL, "", 0, 0, "true", NULL,
	  "hybridep: its kernels write the tokens in their experts' order and "
	  "read them back from it, so no permute runs before the experts or "
	  "after them (Megatron-Core's moe_permute_fusion_into_hybridep, "
	  "Megatron-LM PR #4089 of 2026-04-28); false: HybridEP of before, which "
	  "permutes as DeepEP does; needs ep_dispatcher hybridep" },
	{ "parallel.ep_dispatcher_sms", CFG_INT, "", 1, 1024, "20", NULL,
	  "SMs the flex dispatcher's (deepep, hybridep) dispatch and combine "
	  "kernels hold while they run; what they hold beside an MoE layer's "
	  "compute (parallel.ep_overlap) that compute lacks (Megatron-Core "
	  "moe_flex_dispatcher_num_sms, before it moe_deepep_num_sms and "
	  "moe_hybridep_num_sms).  Default 20: DeepEP's Buffer.num_sms, Megatron-"
	  "Core's, DeepSeek-V3's (arXiv:2412.19437 sec. 3.2.2); Megatron-Bridge's "
	  "performance scripts run HybridEP on 32 (scripts/performance/utils/"
	  "overrides.py, v0.4.0), its model recipes on 16.  Less than the GPU's "
	  "SMs; needs ep_dispatcher deepep or hybridep" },
	{ "parallel.ep_fp8_dispatch", CFG_BOOL, "", 0, 0, "false", NULL,
	  "the dispatch all-to-alls (forward, and the backward of the combine) "
	  "carry FP8 with a scale per 128 elements, the combines bf16 "
	  "(DeepSeek-V3, arXiv:2412.19437 sec. 3.3.2); needs dtype fp8" },
	{ "parallel.moe_router_padding", CFG_BOOL, "", 0, 0, "false", NULL,
	  "the router pads each expert's tokens to the alignment its FP8 or FP4 "
	  "GEMMs need (16 rows; MXFP8 32, NVFP4 128) before the dispatch (Megatron-Core's "
	  "moe_router_padding_for_quantization, before it moe_router_padding_for_"
	  "fp8), so the experts' module copies nothing; false (Megatron-Core's "
	  "default): the module pads its input and unpads its output, a copy of "
	  "the routed tokens each way in both passes, unless drop and pad made "
	  "the counts aligned (compute.c moe_pad_copies).  HybridEP pads in its "
	  "dispatch either way; needs dtype fp8 and experts" },
	{ "parallel.moe_gemm", CFG_ENUM, "", 0, 0, "per_expert", "per_expert|grouped",
	  "how an MoE layer's experts run their GEMMs: per_expert (one GEMM "
	  "call per local expert: Transformer Engine's GroupedLinear under "
	  "Megatron-Core, eager loops), or grouped (one grouped-GEMM kernel for "
	  "all of them: the grouped_gemm package's CUTLASS kernel, DeepGEMM); "
	  "the GPU time is the same, the host launches differ (models/host.h)" },
	{ "parallel.moe_act_fused", CFG_BOOL, "", 0, 0, "true", NULL,
	  "an MoE layer's experts run their activation as one fused kernel that "
	  "also applies the router's weights (Megatron-Core's "
	  "weighted_bias_swiglu_impl under bias_activation_fusion; an MLP module's "
	  "fused bias-GeGLU in SequentialMLP before 0.12); false: Megatron-Core "
	  "0.12+ TEGroupedMLP's eager path, the activation's kernels, then the "
	  "weights multiplied in fp32 and the product cast back to bf16 "
	  "(compute.c).  Default: true for SwiGLU experts, false for GeLU and "
	  "GeGLU (TEGroupedMLP fuses only SwiGLU); stacks that run eager kernels "
	  "keep theirs either way" },
	{ "parallel.dp_bucket_mb", CFG_FLOAT, "MB", 0, 1e6, "0", NULL,
	  "Megatron gradient bucket; 0: Megatron-LM's default of max(40M, 1M x dp) "
	  "gradient elements, at the width DP reduces them in (160 MB of fp32 "
	  "gradients at dp <= 40)" },
	{ "parallel.zero_bucket_mb", CFG_FLOAT, "MB", 0.001, 1e6, "1000", NULL,
	  "ZeRO reduce / all-gather bucket (DeepSpeed's 5e8 fp16 elements)" },
	{ "parallel.zero_prefetch_mb", CFG_FLOAT, "MB", 0.001, 1e6, "100", NULL,
	  "ZeRO-3 weights gathered ahead of the compute (DeepSpeed's "
	  "stage3_prefetch_bucket_size, 5e7 fp16 elements)" },
	{ "parallel.zero_shard_ranks", CFG_INT, "", 0, 1e7, "0", NULL,
	  "hybrid sharding: ZeRO-2/3 shard over groups of this many data-parallel "
	  "ranks and replicate across the groups; each reduce-scatter in a group is "
	  "followed by the all-reduce of its shard across the groups, per layer and "
	  "microbatch (PyTorch FSDP HYBRID_SHARD and _HYBRID_SHARD_ZERO2, "
	  "torchtitan's and OLMo's HSDP); 0: shard over every rank" },
	{ "parallel.zero3_fetch", CFG_ENUM, "", 0, 0, "prefetch", "prefetch|sync_per_tensor",
	  "how ZeRO-3 moves weights and gradients: prefetch (a layer's weights "
	  "gathered ahead, under the compute: PyTorch FSDP, DeepSpeed 0.5.5 and "
	  "later) or sync_per_tensor (DeepSpeed 0.3.13-0.5.4, 2021: one list "
	  "all_gather or reduce_scatter per parameter tensor, each after a device "
	  "synchronize, so none runs under the compute, and each copying every "
	  "rank's slice apart; step.h); needs zero_stage 3" },
	{ "parallel.zero_contiguous_grads", CFG_BOOL, "", 0, 0, "false", NULL,
	  "DeepSpeed's contiguous_gradients: ZeRO copies each gradient into a "
	  "preallocated buffer of zero_bucket_mb before reducing it, one for "
	  "ZeRO-3 (held throughout), one for ZeRO-1/2 or two with "
	  "overlap_grad_reduce (DeepSpeed's overlap_comm double buffer), "
	  "allocated at each backward; counted in the peak memory without a "
	  "pipeline (DeepSpeed's pipeline engine allocates its one after the "
	  "flush).  Default: the stack's (true for deepspeed_zero: DeepSpeed's "
	  "default since v0.4.3, 2021-07; false elsewhere: PyTorch FSDP, "
	  "Megatron's buffers, Megatron-DeepSpeed's ZeRO-1)" },
	{ "parallel.adam_moments", CFG_ENUM, "", 0, 0, "fp32", "fp32|bf16",
	  "Adam's first and second moments: fp32, or bf16 (DeepSeek-V3 report "
	  "sec. 3.3.3; Megatron-Core --use-precision-aware-optimizer "
	  "--exp-avg-dtype bf16 --exp-avg-sq-dtype bf16): 8 bytes of optimizer "
	  "state a parameter instead of 12 (the fp32 master stays), and 22 bytes "
	  "streamed by the step instead of 30" },
	{ "parallel.adam_master", CFG_ENUM, "", 0, 0, "fp32", "fp32|remainders|bf16",
	  "Adam's master weights: a whole fp32 copy (4 bytes a parameter); only "
	  "the low 16 bits that the bf16 weight lacks (2 bytes: Apex's "
	  "DistributedFusedAdam store_param_remainders, which NeMo 1.x sets for "
	  "an fp32 optimizer over bf16 weights, megatron_base_model.py; the step "
	  "reads and writes the bf16 weight and the remainder, 12 bytes beside "
	  "the moments' instead of 14; needs a sharded optimizer, "
	  "distributed_optimizer or zero_stage >= 1); or none, the bf16 weights "
	  "updated in place (0 bytes; NeMo 1.x with the optimizer's dtype bf16, "
	  "store_params False; the step reads and writes the weight, 8 bytes "
	  "beside the moments'); the last two need bf16 weights" },
	{ "parallel.memory_reserve_gb", CFG_FLOAT, "GB", 0, 1e4, "3", NULL,
	  "per-GPU memory the framework keeps: CUDA context (~0.5-1 GB), NCCL "
	  "buffers, caching-allocator fragmentation" },
	CFG_END
};

bool par_megatron_ddp(const struct par_opts *o)
{
	return o->fused_kernels && !o->ds_engine && o->zero_stage == 0;
}

double par_megatron_bucket_bytes(int dp, double grad_bytes)
{
	double elems = 1e6 * dp;

	return grad_bytes * (elems > 40e6 ? elems : 40e6);
}

void par_defaults(struct par_opts *o)
{
	memset(o, 0, sizeof *o);
	o->schedule = PAR_1F1B;
	o->virtual_stages = 1;
	o->recompute = PAR_RECOMPUTE_SELECTIVE;
	o->overlap_grad_reduce = true;
	o->fused_kernels = true;
	o->stack_band = stack_table[0].band;
	o->stack = stack_table[0].name;
	o->dtype = PAR_BF16;
	o->p2p_scatter_gather = true;
	o->grad_reduce_bytes = stack_table[0].grad_reduce_bytes;
	o->dp_bucket_bytes = 80 * MB;	/* Megatron's 40M fp16 elements */
	o->zero_bucket_bytes = 1000 * MB;
	o->zero_prefetch_bytes = 100 * MB;
	o->reserve_bytes = 3 * GB;
	o->host_s_per_kernel = stack_table[0].host_us_per_kernel * 1e-6;
	o->host_s_per_launch = STACK_LAUNCH_US * 1e-6;
}

int par_shard_ranks(const struct par_opts *o, int dp)
{
	return o->zero_shard_ranks > 0 && o->zero_shard_ranks < dp ? o->zero_shard_ranks : dp;
}

double par_dp_bucket_bytes(const struct par_opts *o, int dp)
{
	return o->dp_bucket_bytes > 0 ? o->dp_bucket_bytes :
	       par_megatron_bucket_bytes(dp, o->grad_reduce_bytes);
}

/* The dispatcher's settings need experts; FP8 dispatch, FP8 GEMMs to feed;
 * DeepEP's counts, groups that nest with the EP group's nodes and GPUs
 * (dispatch.h; nodes as the default placement puts ranks). */
static int check_dispatch(const struct sc_where *w, const struct tfm *m,
			  const struct layout *L, const struct par_opts *o, struct err *e)
{
	const char *key = o->ep_fp8_dispatch ? "parallel.ep_fp8_dispatch" :
			  o->ep_deepep ? "parallel.ep_dispatcher" :
			  o->moe_grouped_gemm ? "parallel.moe_gemm" : "parallel.moe_act_fused";

	if ((o->ep_deepep || o->ep_fp8_dispatch || o->moe_grouped_gemm || o->moe_act_set) &&
	    m->moe.experts == 0)
		return sc_where_error(w, e, key, "an MoE setting without experts "
				      "(expected model.moe.experts > 0)");
	if (o->ep_permute_set && !o->ep_hybridep)
		return sc_where_error(w, e, "parallel.ep_permute_fused", "only HybridEP "
				      "fuses the permute into its kernels (expected "
				      "parallel.ep_dispatcher = \"hybridep\")");
	if (o->ep_sms_set && !o->ep_deepep)
		return sc_where_error(w, e, "parallel.ep_dispatcher_sms", "the all-to-all "
				      "dispatcher runs on NCCL's channels, not SMs of its "
				      "own (expected parallel.ep_dispatcher = \"deepep\" or "
				      "\"hybridep\")");
	if (o->moe_router_padding && (o->dtype != PAR_FP8 || m->moe.experts == 0))
		return sc_where_error(w, e, "parallel.moe_router_padding", "pads experts' "
				      "tokens for their FP8 GEMMs (expected model.moe.experts "
				      "> 0 and parallel.dtype = \"fp8\", or moe_router_padding "
				      "false)");
	if (o->ep_fp8_dispatch && o->dtype != PAR_FP8)
		return sc_where_error(w, e, "parallel.ep_fp8_dispatch", "FP8 dispatch "
				      "quantizes the experts' FP8 GEMM inputs (expected "
				      "parallel.dtype = \"fp8\", or ep_fp8_dispatch false)");
	if (!o->ep_deepep || L->ep <= 1)
		return 0;
	int nodes = layout_ep_nodes(L);
	if (disp_distinct(&m->moe, nodes) < 0 || disp_distinct(&m->moe, L->ep) < 0)
		return sc_where_error(w, e, "model.moe.groups", "%d expert groups do "
				      "not nest with the EP group's %d GPUs over %d node%s "
				      "(expected a multiple or a divisor of each count)",
				      m->moe.groups, L->ep, nodes, nodes > 1 ? "s" : "");
	return 0;
}

/* Scope names Megatron-Core knows; MoE parts need experts; a whole-step
 * graph needs fixed shapes, which a dropless MoE's routing does not give. */
static int check_cuda_graphs(const struct sc_where *w, const struct tfm *m,
			     const struct par_opts *o, struct err *e)
{
	const char *key = "parallel.cuda_graph_scope";

	if (o->cuda_graph_bad_set)
		return sc_where_error(w, e, key, "%s%s%s (expected a comma-separated list "
				      "of attn, mlp, moe_router, moe_preprocess, or "
				      "full_iteration)", o->cuda_graph_bad[0] ?
				      "unknown scope \"" : "an empty scope name",
				      o->cuda_graph_bad, o->cuda_graph_bad[0] ? "\"" : "");
	if ((o->cuda_graph_scope & CG_MOE_ROUTER) && m->moe.experts == 0)
		return sc_where_error(w, e, key, "an MoE scope without experts (expected "
				      "model.moe.experts > 0, or no moe_router, moe_preprocess)");
	if ((o->cuda_graph_scope & CG_FULL) && m->moe.experts > 0 &&
	    m->moe.capacity_factor <= 0)
		return sc_where_error(w, e, key, "full_iteration needs fixed shapes, but a "
				      "dropless MoE reads its routed token counts on the host "
				      "every layer (expected model.moe.capacity_factor > 0, or "
				      "per-layer scopes)");
	return 0;
}

int par_check(const struct sc_where *w, const struct tfm *m,
	      const struct layout *L, const struct par_opts *o, struct err *e)
{
	int v = o->virtual_stages;

	if (o->recompute_bad)
		return sc_where_error(w, e, "parallel.recompute_modules", "%s%s%s (expected "
				      "a comma-separated list of core_attn, layernorm, "
				      "mla_up_proj, mlp, moe, moe_act, shared_experts)",
				      o->recompute_bad_name[0] ? "unknown module \"" :
				      "an empty module name", o->recompute_bad_name,
				      o->recompute_bad_name[0] ? "\"" : "");
	if (o->recompute_modules && o->recompute != PAR_RECOMPUTE_SELECTIVE)
		return sc_where_error(w, e, "parallel.recompute_modules", "modules are "
				      "recomputed within selective recomputation, but "
				      "recompute is \"%s\" (expected recompute = "
				      "\"selective\", or no modules)",
				      o->recompute == PAR_RECOMPUTE_FULL ? "full" : "none");
	if ((o->recompute_modules & (CMP_RC_MOE | CMP_RC_MOE_ACT | CMP_RC_SHARED_EXPERTS)) &&
	    m->moe.experts == 0)
		return sc_where_error(w, e, "parallel.recompute_modules", "MoE modules "
				      "without experts (expected model.moe.experts > 0, "
				      "or no moe, moe_act, shared_experts)");
	if (check_cuda_graphs(w, m, o, e) < 0)
		return -1;
	if (o->grad_nan_check && !par_megatron_ddp(o))
		return sc_where_error(w, e, "parallel.check_for_nan_in_grad", "the check "
				      "is Megatron DDP's, but %s (expected a Megatron "
				      "stack with zero_stage 0, or false)",
				      o->zero_stage >= 2 ? "ZeRO-2/3 shards the gradients" :
				      o->zero_stage == 1 ? "ZeRO-1's optimizer holds the gradients" :
				      o->ds_engine ? "DeepSpeed's engine holds the gradients" :
				      "the stack reduces gradients through PyTorch");
	if (o->schedule == PAR_INTERLEAVED) {
		if (L->pp < 2)
			return sc_where_error(w, e, "parallel.schedule", "interleaved "
					      "needs pp >= 2 (expected 1f1b for a single stage)");
		if (v < 2)
			return sc_where_error(w, e, "parallel.virtual_stages", "interleaved "
					      "needs at least 2 virtual stages (expected >= 2)");
		/* chunks may differ by a layer (layout.h); only the embedding's
		 * and the loss's may hold no layer (Llama 3, layout.h) */
		for (int k = 0; k < L->pp; k++) {
			int n = layout_stage_layers(L, m->layers, k);
			int most = k == 0 || k == L->pp - 1 ? n + 1 : n;
			if (v > most)
				return sc_where_error(w, e, "parallel.virtual_stages",
						      "stage %d's %d layers do not make %d "
						      "chunks (expected at most %d virtual "
						      "stages)", k, n, v, most);
		}
		if (L->microbatches % L->pp != 0)
			return sc_where_error(w, e, "parallel.global_batch", "%d "
					      "microbatches per pipeline are not a multiple "
					      "of pp = %d (Megatron's interleaved schedule "
					      "needs one)", L->microbatches, L->pp);
	} else if (v != 1) {
		return sc_where_error(w, e, "parallel.virtual_stages", "virtual stages "
				      "need the interleaved schedule (expected 1 with 1f1b, "
				      "deepspeed or dualpipe)");
	}
	/* DualPipe.step: num_ranks even, num_chunks even and >= 2 num_ranks
	 * (deepseek-ai/DualPipe dualpipe.py) */
	if (o->schedule == PAR_DUALPIPE && (L->pp < 2 || L->pp % 2 != 0))
		return sc_where_error(w, e, "parallel.schedule", "dualpipe with pp = %d "
				      "(expected an even pp >= 2: each rank pairs stage k "
				      "with stage pp-1-k)", L->pp);
	if (o->schedule == PAR_DUALPIPE &&
	    (L->microbatches % 2 != 0 || L->microbatches < 2 * L->pp))
		return sc_where_error(w, e, "parallel.global_batch", "%d microbatches "
				      "per pipeline for dualpipe (expected an even number, "
				      "at least 2 pp = %d: half enter at each end)",
				      L->microbatches, 2 * L->pp);
	/* ZeRO-2 with pipeline stages reduce-scatters every microbatch's
	 * gradients (FSDP without resharding weights, as Llama 3 ran it,
	 * arXiv:2407.21783 sec. 3.3.2); DeepSpeed's PipelineEngine refuses it,
	 * and ZeRO-3 would gather every chunk's weights per microbatch. */
	if (L->pp > 1 && (o->zero_stage >= 3 ||
			  (o->zero_stage == 2 && o->schedule == PAR_DEEPSPEED)))
		return sc_where_error(w, e, "parallel.zero_stage", "ZeRO-%d splits "
				      "%s that pipeline stages hold over microbatches; "
				      "%s (expected pp = 1, or zero_stage <= %d)",
				      o->zero_stage, o->zero_stage >= 3 ? "weights" :
				      "gradients", o->zero_stage >= 3 ? "trainsim models "
				      "ZeRO-3 only without pipeline parallelism" :
				      "DeepSpeed's pipeline engine allows only ZeRO-1",
				      o->zero_stage >= 3 ? 2 : 1);
	if (o->attn_conflict)
		return sc_where_error(w, e, "parallel.attention_kernel", "%s %s a flash "
				      "kernel but parallel.flash_attention says %s (expected "
				      "one of them, or both agreeing)",
				      attn_impl_names[o->attention_kernel],
				      o->flash_attention ? "is" : "is not",
				      o->flash_attention ? "false" : "true");
	if (o->adam_master == CMP_MASTER_REMAINDER &&
	    !(o->distributed_optimizer || o->zero_stage >= 1))
		return sc_where_error(w, e, "parallel.adam_master", "the remainders are "
				      "a sharded optimizer's (expected parallel."
				      "distributed_optimizer = true or zero_stage >= 1, or "
				      "adam_master \"fp32\")");
	if (o->adam_master != CMP_MASTER_FP32 && (o->dtype == PAR_FP16 || o->fp8_params ||
						  o->amp_fp32_weights))
		return sc_where_error(w, e, "parallel.adam_master", "%s (expected bf16 "
				      "weights: parallel.dtype \"bf16\", or \"fp8\" without "
				      "fp8_params, under a stack that keeps 16-bit weights; "
				      "or adam_master \"fp32\")",
				      o->adam_master == CMP_MASTER_REMAINDER ?
				      "the remainders complete bf16 weights to fp32" :
				      "a bf16 master is the bf16 weights");
	if (o->fp8_params && o->dtype != PAR_FP8)
		return sc_where_error(w, e, "parallel.fp8_params", "FP8 weights need "
				      "FP8 GEMMs (expected parallel.dtype = \"fp8\", or "
				      "fp8_params false)");
	if (!o->nvfp4_hadamard && o->fp8_recipe != CMP_FP4_NV)
		return sc_where_error(w, e, "parallel.nvfp4_hadamard", "the Hadamard "
				      "transforms are NVFP4's (expected parallel.fp8_recipe "
				      "= \"nvfp4\", or nvfp4_hadamard true, the default)");
	if (o->fp8_recipe != CMP_FP8_DELAYED && o->dtype != PAR_FP8)
		return sc_where_error(w, e, "parallel.fp8_recipe", "an FP8 scaling "
				      "recipe needs FP8 GEMMs (expected parallel.dtype = "
				      "\"fp8\", or fp8_recipe \"delayed\", the default)");
	if (check_dispatch(w, m, L, o, e) < 0)
		return -1;
	if (o->align_param_gather && (o->schedule != PAR_INTERLEAVED ||
				      !o->overlap_param_gather || !o->distributed_optimizer))
		return sc_where_error(w, e, "parallel.align_param_gather", "aligned weight "
				      "gathers are the interleaved schedule's with the "
				      "distributed optimizer's overlapped gather (expected "
				      "schedule \"interleaved\", distributed_optimizer and "
				      "overlap_param_gather true, or align_param_gather false)");
	if (o->zero_shard_ranks > 0 && o->zero_stage < 2)
		return sc_where_error(w, e, "parallel.zero_shard_ranks", "hybrid sharding "
				      "splits ZeRO-2/3's shards, but zero_stage is %d "
				      "(expected zero_stage 2 or 3, or zero_shard_ranks 0)",
				      o->zero_stage);
	if (o->zero_shard_ranks > 0 && L->dp % o->zero_shard_ranks != 0)
		return sc_where_error(w, e, "parallel.zero_shard_ranks", "%d data-parallel "
				      "ranks do not make groups of %d (expected a divisor "
				      "of dp = %d)", L->dp, o->zero_shard_ranks, L->dp);
	if (o->zero3_sync && o->zero_stage != 3)
		return sc_where_error(w, e, "parallel.zero3_fetch", "sync_per_tensor "
				      "says how ZeRO-3 gathers weights, but zero_stage is %d "
				      "(expected zero_stage = 3, or zero3_fetch \"prefetch\")",
				      o->zero_stage);
	if (o->zero_contiguous_written && o->zero_stage < 1)
		return sc_where_error(w, e, "parallel.zero_contiguous_grads", "DeepSpeed's "
				      "contiguous gradient buffers are ZeRO's, but zero_stage "
				      "is 0 (expected zero_stage 1-3, or "
				      "zero_contiguous_grads false)");
	if (o->zero_stage >= 1 && o->distributed_optimizer)
		return sc_where_error(w, e, "parallel.distributed_optimizer", "the "
				      "distributed optimizer and ZeRO both shard the "
				      "optimizer (expected one of them)");
	return 0;
}

/* A boolean the scenario sets, else the stack's default. */
static bool pick(const struct scenario *sc, const char *path, bool stack_default)
{
	return sc_has(sc, "%s", path) ? sc_bool(sc, "%s", path) : stack_default;
}

bool par_moe_recomputed(const struct par_opts *o)
{
	return o->recompute == PAR_RECOMPUTE_FULL ||
	       (o->recompute == PAR_RECOMPUTE_SELECTIVE &&
		(o->recompute_modules & CMP_RC_MOE));
}

/* The names of parallel.recompute_modules, as Megatron-Core spells them. */
static const struct { const char *name; unsigned bit; } rc_modules[] = {
	{ "core_attn", 0 }, { "layernorm", CMP_RC_LAYERNORM },
	{ "mla_up_proj", CMP_RC_MLA_UP_PROJ }, { "mlp", CMP_RC_MLP },
	{ "moe", CMP_RC_MOE }, { "moe_act", CMP_RC_MOE_ACT },
	{ "shared_experts", CMP_RC_SHARED_EXPERTS },
};

/* "a,b,c" into CMP_RC_* bits; the first name that is none (an empty one
 * too: "a,,b", "a,") into o->recompute_bad_name. */
static void parse_rc_modules(const char *list, struct par_opts *o)
{
	const char *p = list;

	o->recompute_modules = 0;
	o->recompute_bad = false;
	o->recompute_bad_name[0] = '\0';
	if (!*p)
		return;		/* "": no modules */
	for (;; p++) {
		size_t n = strcspn(p, ",");
		size_t i, k = sizeof rc_modules / sizeof rc_modules[0];
		for (i = 0; i < k; i++)
			if (strlen(rc_modules[i].name) == n &&
			    strncmp(p, rc_modules[i].name, n) == 0)
				break;
		if (i < k)
			o->recompute_modules |= rc_modules[i].bit;
		else if (!o->recompute_bad) {
			o->recompute_bad = true;
			snprintf(o->recompute_bad_name, sizeof o->recompute_bad_name,
				 "%.*s", (int)(n < 31 ? n : 31), p);
		}
		p += n;
		if (*p != ',')
			break;
	}
}

void par_from_scenario(const struct scenario *sc, struct par_opts *o)
{
	const struct stack_spec *st = stack_find(sc_str(sc, "training.stack"));

	par_defaults(o);
	o->stack_band = st->band;
	o->stack = st->name;
	const char *sch = sc_str(sc, "parallel.schedule");
	o->schedule = strcmp(sch, "interleaved") == 0 ? PAR_INTERLEAVED :
		      strcmp(sch, "deepspeed") == 0 ? PAR_DEEPSPEED :
		      strcmp(sch, "dualpipe") == 0 ? PAR_DUALPIPE : PAR_1F1B;
	o->virtual_stages = (int)sc_int(sc, "parallel.virtual_stages");
	o->sequence_parallel = pick(sc, "parallel.sequence_parallel", st->sequence_parallel);
	const char *rc = sc_str(sc, "parallel.recompute");
	o->recompute = strcmp(rc, "full") == 0 ? PAR_RECOMPUTE_FULL :
		       strcmp(rc, "none") == 0 ? PAR_RECOMPUTE_NONE :
		       PAR_RECOMPUTE_SELECTIVE;
	parse_rc_modules(sc_str(sc, "parallel.recompute_modules"), o);
	o->cuda_graph_bad_set = cg_parse(sc_str(sc, "parallel.cuda_graph_scope"),
					 &o->cuda_graph_scope, o->cuda_graph_bad) < 0;
	o->zero_stage = sc_has(sc, "parallel.zero_stage") ?
			(int)sc_int(sc, "parallel.zero_stage") : st->zero_stage;
	o->distributed_optimizer = pick(sc, "parallel.distributed_optimizer",
					st->distributed_optimizer);
	o->overlap_grad_reduce = pick(sc, "parallel.overlap_grad_reduce",
				      st->overlap_grad_reduce);
	o->flash_attention = pick(sc, "parallel.flash_attention", st->flash_attention);
	o->attention_kernel = o->flash_attention ? st->flash_kernel : ATTN_UNFUSED;
	if (sc_has(sc, "parallel.attention_kernel")) {
		enum attn_impl k = attn_impl_find(sc_str(sc, "parallel.attention_kernel"));
		bool flash = k != ATTN_UNFUSED;
		o->attn_conflict = sc_has(sc, "parallel.flash_attention") &&
				   flash != o->flash_attention;
		o->attention_kernel = k;
		o->flash_attention = flash;
	}
	o->grad_accum_fusion = pick(sc, "parallel.grad_accum_fusion", st->grad_accum_fusion);
	o->tp_comm_overlap = pick(sc, "parallel.tp_comm_overlap", st->tp_comm_overlap);
	o->tp_async_allreduce = pick(sc, "parallel.tp_async_allreduce",
				     st->tp_async_allreduce);
	o->overlap_p2p_comm = pick(sc, "parallel.overlap_p2p_comm", st->overlap_p2p_comm);
	o->p2p_scatter_gather = pick(sc, "parallel.p2p_scatter_gather", st->p2p_scatter_gather);
	o->fused_kernels = st->fused_kernels;
	o->fp32_logits = st->fp32_logits;
	o->grad_reduce_bytes = pick(sc, "parallel.grad_reduce_fp32",
				    st->grad_reduce_bytes >= 4) ? 4 : 2;
	o->overlap_param_gather = pick(sc, "parallel.overlap_param_gather",
				       st->overlap_param_gather);
	o->align_param_gather = sc_bool(sc, "parallel.align_param_gather");
	const char *dt = sc_str(sc, "parallel.dtype");
	o->dtype = strcmp(dt, "fp8") == 0 ? PAR_FP8 : strcmp(dt, "fp16") == 0 ? PAR_FP16 : PAR_BF16;
	o->ds_engine = st->ds_engine;
	o->fp8_params = sc_bool(sc, "parallel.fp8_params");
	o->nvfp4_hadamard = sc_bool(sc, "parallel.nvfp4_hadamard");
	const char *recipe = sc_str(sc, "parallel.fp8_recipe");
	o->fp8_recipe = strcmp(recipe, "current") == 0 ? CMP_FP8_CURRENT :
			strcmp(recipe, "mxfp8") == 0 ? CMP_FP8_MX :
			strcmp(recipe, "nvfp4") == 0 ? CMP_FP4_NV :
			strcmp(recipe, "blockwise") == 0 ? CMP_FP8_BLOCK : CMP_FP8_DELAYED;
	o->dp_bucket_bytes = sc_float(sc, "parallel.dp_bucket_mb") * MB;
	if (o->dp_bucket_bytes <= 0)	/* 0: Megatron's rule for the dp, later */
		o->dp_bucket_bytes = st->dp_bucket_mb * MB;
	o->zero_bucket_bytes = sc_float(sc, "parallel.zero_bucket_mb") * MB;
	o->zero_prefetch_bytes = sc_float(sc, "parallel.zero_prefetch_mb") * MB;
	o->zero3_sync = strcmp(sc_str(sc, "parallel.zero3_fetch"), "sync_per_tensor") == 0;
	o->zero_contiguous_grads = pick(sc, "parallel.zero_contiguous_grads",
					st->zero_contiguous_grads);
	o->zero_contiguous_written = sc_has(sc, "parallel.zero_contiguous_grads") &&
				     o->zero_contiguous_grads;
	o->ds_zero_optimizer = st->ds_zero_optimizer;
	o->zero_shard_ranks = (int)sc_int(sc, "parallel.zero_shard_ranks");
	o->reserve_bytes = sc_float(sc, "parallel.memory_reserve_gb") * GB;
	o->adam_bf16_moments = strcmp(sc_str(sc, "parallel.adam_moments"), "bf16") == 0;
	const char *master = sc_str(sc, "parallel.adam_master");
	o->adam_master = strcmp(master, "remainders") == 0 ? CMP_MASTER_REMAINDER :
			 strcmp(master, "bf16") == 0 ? CMP_MASTER_WEIGHTS : CMP_MASTER_FP32;
	/* the stacks' figures are a DGX H100 host's; the node says how fast its
	 * own issues an op.  A figure the scenario writes is its host's. */
	o->host_s_per_kernel = (sc_has(sc, "training.host_us_per_kernel") ?
				sc_float(sc, "training.host_us_per_kernel") :
				st->host_us_per_kernel * node_host_op_scale(sc)) * 1e-6;
	/* a launch from a library's loop costs no more than an op */
	o->host_s_per_launch = fmin(STACK_LAUNCH_US * node_host_op_scale(sc) * 1e-6,
				    o->host_s_per_kernel);
	o->launch_blocking = sc_bool(sc, "training.launch_blocking");
	o->amp_fp32_weights = st->amp_fp32_weights;
	o->adam_foreach = pick(sc, "training.adam_foreach", st->adam_foreach);
	o->clip_grad_norm = st->clip_grad_norm;
	o->adam_loop = false;
	o->adam_sync = false;
	if (sc_has(sc, "training.adam_impl")) {
		const char *impl = sc_str(sc, "training.adam_impl");
		o->adam_sync = strcmp(impl, "composer") == 0;
		o->adam_loop = o->adam_sync || strcmp(impl, "loop") == 0;
		o->adam_foreach = strcmp(impl, "foreach") == 0;
	}
	o->zero_reduce_fp32 = sc_bool(sc, "parallel.zero_reduce_fp32");
	o->ep_hybridep = strcmp(sc_str(sc, "parallel.ep_dispatcher"), "hybridep") == 0;
	o->ep_deepep = o->ep_hybridep ||
		       strcmp(sc_str(sc, "parallel.ep_dispatcher"), "deepep") == 0;
	o->ep_permute_set = sc_has(sc, "parallel.ep_permute_fused");
	o->ep_permute_fused = o->ep_hybridep && sc_bool(sc, "parallel.ep_permute_fused");
	o->ep_sms = (double)sc_int(sc, "parallel.ep_dispatcher_sms");
	o->ep_sms_set = sc_has(sc, "parallel.ep_dispatcher_sms");
	o->ep_fp8_dispatch = sc_bool(sc, "parallel.ep_fp8_dispatch");
	o->moe_router_padding = sc_bool(sc, "parallel.moe_router_padding");
	o->moe_grouped_gemm = strcmp(sc_str(sc, "parallel.moe_gemm"), "grouped") == 0;
	o->moe_act_set = sc_has(sc, "parallel.moe_act_fused");
	o->moe_act_fused = o->moe_act_set ?
			   sc_bool(sc, "parallel.moe_act_fused") :
			   strcmp(sc_str(sc, "model.mlp"), "swiglu") == 0;
	const char *loss = sc_str(sc, "training.loss_kernel");
	o->loss = strcmp(loss, "xentropy") == 0 ? CMP_LOSS_XENTROPY :
		  strcmp(loss, "te") == 0 ? CMP_LOSS_TE : CMP_LOSS_STACK;
	o->metric_ce = (double)sc_int(sc, "training.metric_cross_entropies");
	/* the stack's default only where its DDP holds the gradients (a
	 * ZeRO layout of the same stack is valid without the check); a
	 * written true elsewhere is refused (par_check) */
	o->grad_nan_check = sc_has(sc, "parallel.check_for_nan_in_grad") ?
			    sc_bool(sc, "parallel.check_for_nan_in_grad") :
			    st->grad_nan_check && par_megatron_ddp(o);
}
