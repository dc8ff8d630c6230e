/*
 * stack.c -- the software stacks' facts (see stack.h), each with its source.
 *
 * A stack's band is the uncertainty of its facts on a GPU without
 * validation rows of its own: combined with the GPU's (hypot) where
 * gpus.*.validated_band gives no figure for the pair.  Each is the largest
 * |error| of the stack's independent validation rows (make validate,
 * 2026-12-01, every model change of that day included; nothing in the
 * model was tuned on them): megatron_lm_2021 25% (A100: OPT and the SC'21
 * paper's Table 2, whose DeepSpeed-2021 ZeRO-3 rows reach +24.0%; 18%
 * before them; H100: Llama 3, 16%; Table 1, its calibration, is within
 * 5%; MT-NLG and BLOOM moved to megatron_deepspeed, 28%, 2026-12-02),
 * megatron_lm_2022
 * 9% (Korthikanti et al. 2022, nine rows, -8.9% to +3.9%), megatron_core
 * 32% (eleven Megatron-Core H100 rows, -16% to +24%, kept at the morning's
 * widest), deepspeed_zero 17% (no row runs it now: OPT's scenario is
 * Megatron kernels under FSDP, megatron_lm_2021 with ZeRO-3),
 * pytorch_eager 19% (six llm-foundry MPT rows on 8 H100 with FSDP and the
 * Triton attention kernel they ran, +0.0% to +17.9% once their fp32
 * reduce-scatter, per-tensor optimizer, fused loss and training metrics
 * are modelled; +15.9% to +30.6% before, 2026-12-01; five more on 8 A100
 * 80GB, -3.4% to +1.5%, 2026-12-02, which a100_80gb's validated_band
 * reports).
 *
 * DP gradient bytes: Megatron reduces gradients in the weights' 2 bytes
 * under fp16 (Table 1); with bf16 Megatron-LM's arguments.py turns on
 * --accumulate-allreduce-grads-in-fp32 unless told otherwise ("bfloat16
 * requires gradient accumulation and all-reduce to be done in fp32",
 * megatron/training/arguments.py, core_r0.8.0, 2024-07), so megatron_core
 * reduces 4 bytes.  (Until 2026-12-01 it kept 2 because the Megatron-Core
 * README's 32B row leaves no room for a 16 GB fp32 reduce-scatter per rank:
 * a choice made from a validation row, undone; that row is now 16% too
 * slow and says so.)  PyTorch AMP keeps fp32 weights, so DDP reduces fp32
 * gradients: 4.
 */
#include <string.h>

#include "models/stack.h"

/*
 * Host time per framework op (host.h): a kernel launched from Python, one
 * call of a Transformer Engine module whatever it launches from its C++.
 *
 * 15.5 us, the stacks' figure but Megatron-Core's, and every stack's per
 * launch from a library's own loop (STACK_LAUNCH_US): the floor of the
 * H200 kernel table (scenarios/catalog/kernels/h200_sxm/gemm-bf16.tsv,
 * measured 2026-12-01 with PyTorch 2.11): back-to-back torch.matmul calls
 * from a Python loop whose kernels are shorter than their launch come out
 * at 15.5-17.0 us each however small the GEMM (2048x256x4096 in 15.5 us,
 * twice its FLOPs at 2048x512x4096 in 16.0 us, a quarter of them at 1024^3
 * in 16.5 us, where the same GPU runs large GEMMs at 700+ TFLOP/s): the
 * time does not follow the work, so the host issued one every ~15.5 us.
 * The same order as the CPU time of one torch.nn.Linear forward measured
 * on a DGX H100's Xeon Platinum 8480C, 13.5 us (NVIDIA/TransformerEngine
 * issue #2053, 2025-08-11).  Training ops add autograd recording and
 * autocast lookups, the backward pass issues from C++ without Python: one
 * figure both ways is the stated simplification.
 *
 * Megatron-Core's, 131 us an op, is calibrated (make validate's
 * mcore-ci-host-slope row) on Megatron-LM's own CI: its functional tests'
 * golden iteration times on one DGX H100 (tests/functional_tests/
 * test_cases/gpt/, golden_values_dev_dgx_h100.json, commit 93ebf8d72f of
 * 2026-08-19) for a 12-layer GPT of hidden 512, whose layers' GPU work is
 * tens of microseconds: 0.1195 s at TP 2 PP 2 (the median of three tests)
 * and 0.1958 s at TP 4 PP 2, 30 and 54 layer-steps of the 1F1B pipeline,
 * so 3.18 ms a layer forward and backward on the host -- about eight times
 * what 15.5 us a kernel gives.  The slope, not the times: those tests also
 * log parameter norms and gradients' zero counts every iteration, ~19 ms
 * trainsim does not price.  Held out, the same GPT's deterministic-mode
 * tests (unfused attention, more ops) at TP 4, PP 4 x VP 3 and TP 2 PP 2
 * come out +12%, +9% and -22% of their times with that 19 ms added, and
 * at TP 1 PP 1 (one microbatch) +43% (+7% without it); the host-bound
 * rows of make validate moved with it (README, "Accuracy").  A model of what the
 * host does per op (TE's module calls, autograd, Megatron's wrappers) it
 * is not: one average per counted kernel, held to a DGX H100's host,
 * scaled by the node's host_op_scale elsewhere.
 */
#define STACK_HOST_US STACK_LAUNCH_US
#define MCORE_HOST_OP_US 131.0

const struct stack_spec stack_table[] = {
	/* Narayanan et al., "Efficient Large-Scale Language Model Training on
	 * GPU Clusters Using Megatron-LM", SC'21, sections 4.2-4.3 and
	 * NVIDIA/Megatron-LM v2.x (2021): fused scale-mask-softmax,
	 * bias-GeLU and bias-dropout-add kernels (megatron/fused_kernels,
	 * TorchScript fusions), apex FusedLayerNorm and FusedAdam, no flash
	 * attention (2022), no sequence parallelism (2022), gradient
	 * accumulation into fp32 main_grad by a separate add (fusion came in
	 * 2022).  DDP: --DDP-impl torch overlaps the all-reduce with backward
	 * (the default here); the paper's Table 1 ran the local DDP without
	 * overlap, which its scenarios set explicitly. */
	{ "megatron_lm_2021", "Megatron-LM 2021 (SC'21): fused kernels, no flash",
	  false, false, false, true, false, 0, 0,
	  true, false, false, false, true, 2, false, 0.25,
	  STACK_HOST_US, false, false, false, false, ATTN_FLASH2, false, false, false, false },
	/* Megatron-LM of mid-2022 (NVIDIA/Megatron-LM main after the
	 * sequence_parallel merge of 2022-05-20, commit d898a89 of
	 * 2022-05-25), the code of Korthikanti et al., "Reducing Activation
	 * Recomputation in Large Transformer Models" (arXiv:2205.05198): the
	 * 2021 fused kernels, no flash attention (--use-flash-attn came on
	 * 2022-12-08), --sequence-parallel and --recompute-activations
	 * available (off unless asked);
	 * --async-tensor-model-parallel-allreduce on by default (arguments.py
	 * --no-async-..., since 2021-09-02): the column-parallel layers' input-
	 * gradient all-reduce, or reduce-scatter with sequence parallelism,
	 * runs under their weight-gradient GEMM
	 * (mpu/layers.py LinearWithGradAccumulationAndAsyncCommunication);
	 * gradient accumulation fused into the weight-gradient GEMM
	 * (--no-gradient-accumulation-fusion; added 2022-02), which needs fp32
	 * accumulation, which bf16 forces (arguments.py), so DP all-reduces
	 * fp32 gradients: 4 bytes; local DDP by default (--DDP-impl local),
	 * gradients all-reduced after the backward, not overlapped (the
	 * paper's section 6.3 says so of its runs); no distributed optimizer
	 * (merged 2022-06, off by default); p2p as 2021 (scatter-gather,
	 * blocking).  With parallel.flash_attention, flash-attn 1.x: what
	 * --use-flash-attn called until flash-attn 2.0 (2023-07-17), through
	 * flash_attn_unpadded_func (megatron/model/transformer.py at
	 * 285068c8, 2023-01-11). */
	{ "megatron_lm_2022", "Megatron-LM 2022: + async TP all-reduce, grad-accum fusion",
	  false, true, false, false, false, 0, 0,
	  true, false, false, false, true, 4, false, 0.09,
	  STACK_HOST_US, false, false, false, true, ATTN_FLASH1, false, false, false, false },
	/* Megatron-Core 0.5+ / Megatron-LM core_r0.5.0 (2024) as NeMo and its
	 * example scripts run GPT: Transformer Engine fused LayerNorm+GEMM and
	 * attention (DotProductAttention: cuDNN's FusedAttention on sm90 and
	 * newer, flash-attn v2 before, TE v1.4 transformer_engine/pytorch/
	 * attention.py "Select FusedAttention on sm90 and FlashAttention on
	 * others for performance": attention_kernel "te"), --sequence-parallel,
	 * --use-distributed-optimizer, --overlap-grad-reduce and
	 * --overlap-param-gather (Megatron-LM README "Distributed optimizer"),
	 * gradient_accumulation_fusion on by default (arguments.py),
	 * --tp-comm-overlap (Transformer Engine userbuffers; Megatron-Core
	 * docs, "Communication overlap"), --overlap-p2p-communication with the
	 * interleaved schedule, scatter-gather p2p.  Bucket: Megatron's rule.
	 * Without the TP overlap, the input gradient's collective still runs
	 * under the weight-gradient GEMM (megatron/core/tensor_parallel/
	 * layers.py of core_r0.8.0, as 2022's, no longer optional).  The
	 * gradient NaN check on (parallel.check_for_nan_in_grad): Megatron-
	 * LM's command line turns it on unless told --no-check-for-nan-in-
	 * loss-and-grad (arguments.py since 2023-09-05, commit b1116a0c;
	 * training.py passes it to DistributedDataParallelConfig), and so
	 * do NeMo 2.0's recipes (nemo/collections/llm/recipes, e.g.
	 * llama3_8b.py) and Megatron-Bridge's (src/megatron/bridge/recipes/
	 * common.py); the benchmark scripts turn it off (below, step.h). */
	{ "megatron_core", "Megatron-Core 2023+: TE, flash, distributed optimizer, overlaps",
	  true, true, true, true, true, 0, 0,
	  true, false, true, true, true, 4, true, 0.32,
	  MCORE_HOST_OP_US, false, false, false, true, ATTN_TE, false, false, false,
	  true },
	/* Megatron-DeepSpeed (microsoft/Megatron-DeepSpeed 2021 as MT-NLG ran
	 * it, Smith et al. arXiv:2201.11990 sec. 2; the bigscience-workshop
	 * fork as BLOOM ran it, 2022): Megatron-LM 2021's model code and fused
	 * kernels inside DeepSpeed's engine, which owns the pipeline, the
	 * gradients and the optimizer:
	 *  - PipelineEngine's TrainSchedule (parallel.schedule = "deepspeed",
	 *    deepspeed.h), reducing gradients only after the last step
	 *    (_exec_reduce_grads): no overlap;
	 *  - p2p partitioned over the TP ranks (engine.py is_pipe_partitioned =
	 *    is_model_parallel since 2020: each rank sends its 1/t slice, the
	 *    receiver rebuilds the whole with a TP all-gather,
	 *    PartitionedTensor.full() in runtime/utils.py): scatter-gather;
	 *  - bf16: BF16_Optimizer (runtime/bf16_optimizer.py, DeepSpeed
	 *    2022-03+, the bigscience branch): after every microbatch's backward
	 *    update_hp_grads adds lp.grad.to(fp32) into an unsharded fp32
	 *    gradient (CMP_ACCUM_UPCAST, 18 bytes a parameter); at the end the
	 *    fp32 gradient is cast to bf16 and all-reduced whole
	 *    (buffered_allreduce_fallback: DeepSpeed's communication_data_type
	 *    for bf16 without ZeRO), Adam runs on the rank's 1/dp and the bf16
	 *    weights are all-gathered (its own ZeRO-1: "bf16 must use z0! it
	 *    implements its own zero stage 1 equivalent", bigscience
	 *    tr11-176B-ml ds_config); the tied embedding's gradient is
	 *    all-reduced in fp32 (_exec_reduce_tied_grads on _hp_grad);
	 *  - fp16 (DeepSpeed 0.5, 2021: bf16 with pipelines came in PR #1801,
	 *    2022-04-19): ZeRO-1 (runtime/zero/stage2.py) with stage 1 forcing
	 *    overlap_comm and contiguous_gradients off, so autograd sums into
	 *    the fp16 .grad (CMP_ACCUM_HALF, 6 bytes) and the reduction is a
	 *    full fp16 all-reduce (allreduce_bucket), then the weights'
	 *    all-gather.
	 * Not charged: the per-tensor .item() syncs of the overflow check and
	 * the norm, the meta-data p2p before each partitioned transfer, and
	 * (bigscience) --sync-tp-duplicated-parameters' small TP all-reduces.
	 * A gap this stack does not explain: about 6 s per iteration on BLOOM
	 * (an early log line of 15.23 s at 1 microbatch, which may hold
	 * start-up costs; 104.7 s at 128) and MT-NLG alike (three published
	 * times fit a fixed term about twice ours); see doc/sources.md. */
	{ "megatron_deepspeed", "Megatron-DeepSpeed 2021-22: DeepSpeed's pipeline and optimizer",
	  false, false, false, false, false, 1, 0,
	  true, false, false, false, true, 2, false, 0.28,
	  STACK_HOST_US, false, false, false, false, ATTN_FLASH2, true, false, true, false },
	/* DeepSpeed ZeRO (Rajbhandari et al. SC'20; deepspeed.ai ZeRO docs)
	 * training a Hugging Face Transformers GPT: eager PyTorch kernels
	 * (GeLU, dropout, add apart; HF's eager attention: scale, mask,
	 * softmax apart), logits cast to fp32 for the loss (HF
	 * LlamaForCausalLM/GPT2LMHeadModel: logits.float()), DeepSpeed's fused
	 * Adam (FusedAdam, multi-tensor), overlap_comm on (the ZeRO-2/3
	 * config examples), ZeRO stage 1 unless the scenario says (stage 2/3
	 * refuse pipelines), no tensor-parallel overlap; its pipeline engine
	 * waits on each p2p (a model without TP sends whole activations).
	 * Buckets: ZeRO's own (parallel.zero_bucket_mb), held in DeepSpeed's
	 * contiguous gradient buffers (its default since v0.4.3, 2021-07;
	 * memory.c).  Megatron-DeepSpeed's ZeRO-1 above keeps none: its fp16
	 * stage 1 turned them off, its bf16 runs BF16_Optimizer.  Both stacks'
	 * ZeRO optimizer casts the rank's gradient shard to fp32 for the step
	 * (ds_zero_optimizer; memory.c), BF16_Optimizer not. */
	{ "deepspeed_zero", "DeepSpeed ZeRO with a Hugging Face model: eager kernels",
	  false, false, false, true, false, 1, 0,
	  false, true, false, false, true, 2, false, 0.17,
	  STACK_HOST_US, false, false, false, false, ATTN_FLASH2, false, true, true, false },
	/* PyTorch eager with DDP or FSDP under AMP (torch.autocast; PyTorch
	 * AMP docs): fp32 master weights, eager LayerNorm/GeLU/dropout kernels
	 * at their measured rates, logits upcast to fp32 for cross-entropy
	 * (autocast runs log_softmax/nll_loss in fp32), no flash attention
	 * by default: the stack is "a model written in eager PyTorch", and
	 * which attention it runs is the model code's choice, not PyTorch's.
	 * torch.nn.functional.scaled_dot_product_attention (PyTorch 2.0+)
	 * dispatches to its flash backend on Ampere and newer for bf16/fp16
	 * (parallel.attention_kernel = "flash2"), but Hugging Face models
	 * before about transformers 4.36 (2023-12) ran their eager attention
	 * (matmul, softmax, dropout, matmul) unless given
	 * attn_implementation="sdpa"/"flash_attention_2", and MPT runs what
	 * its attn_impl says (torch: unfused, flash: flash-attn, triton:
	 * flash_attn_triton.py).  A default of unfused keeps the scenarios
	 * that say nothing as they were; a scenario says which with
	 * parallel.attention_kernel (or parallel.flash_attention).  DDP buckets of 25 MB overlapped with
	 * backward (torch.nn.parallel.DistributedDataParallel bucket_cap_mb);
	 * FSDP full sharding is ZeRO-3 (parallel.zero_stage = 3).  The loop
	 * (eager.h): autocast casts the fp32 weights every microbatch and their
	 * gradients back, torch.optim.AdamW in its default foreach
	 * implementation, clip_grad_norm_ every step (as nanoGPT's train.py and
	 * torchtitan do). */
	{ "pytorch_eager", "PyTorch eager DDP/FSDP with AMP: unfused kernels",
	  false, false, false, true, false, 0, 25,
	  false, true, false, false, true, 4, false, 0.19,
	  STACK_HOST_US, true, true, true, false, ATTN_FLASH2, false, false, false, false },
	{ NULL, NULL, false, false, false, false, false, 0, 0, false, false, false, false,
	  false, 0, false, 0, 0, false, false, false, false, ATTN_FLASH2, false, false, false, false },
};

const struct stack_spec *stack_find(const char *name)
{
	for (const struct stack_spec *s = stack_table; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}
