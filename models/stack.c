/*
 * stack.c -- the software stacks' facts (see stack.h), each with its source.
 *
 * Bands: megatron_lm_2021 is calibrated (Megatron-LM Table 1, the A100 GEMM
 * rate and HBM fraction were fitted to it: largest residual 5.0%, so 5%);
 * the others have no validation residuals of their own yet (the
 * validation tables will supply them): 10%, stated as a guess.
 */
#include <string.h>

#include "models/stack.h"

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
	  true, false, false, false, true, false, 0.05 },
	/* Megatron-Core 0.5+ / Megatron-LM core_r0.5.0 (2024) as NeMo and its
	 * example scripts run GPT: Transformer Engine fused LayerNorm+GEMM and
	 * flash attention (cuDNN/FA2 backends), --sequence-parallel,
	 * --use-distributed-optimizer, --overlap-grad-reduce and
	 * --overlap-param-gather (Megatron-LM README "Distributed optimizer"),
	 * gradient_accumulation_fusion on by default (arguments.py),
	 * --tp-comm-overlap (Transformer Engine userbuffers; Megatron-Core
	 * docs, "Communication overlap"), --overlap-p2p-communication with the
	 * interleaved schedule, scatter-gather p2p.  Bucket: Megatron's rule. */
	{ "megatron_core", "Megatron-Core 2023+: TE, flash, distributed optimizer, overlaps",
	  true, true, true, true, true, 0, 0,
	  true, false, true, true, true, true, 0.10 },
	/* DeepSpeed ZeRO (Rajbhandari et al. SC'20; deepspeed.ai ZeRO docs)
	 * training a Hugging Face Transformers GPT: eager PyTorch kernels
	 * (GeLU, dropout, add apart; HF's eager attention: scale, mask,
	 * softmax apart), logits cast to fp32 for the loss (HF
	 * LlamaForCausalLM/GPT2LMHeadModel: logits.float()), DeepSpeed's fused
	 * Adam (FusedAdam, multi-tensor), overlap_comm on (the ZeRO-2/3
	 * config examples), ZeRO stage 1 unless the scenario says (stage 2/3
	 * refuse pipelines), no tensor-parallel overlap; its pipeline engine
	 * sends whole activations from every TP rank and waits on each p2p.
	 * Buckets: ZeRO's own (parallel.zero_bucket_mb). */
	{ "deepspeed_zero", "DeepSpeed ZeRO with a Hugging Face model: eager kernels",
	  false, false, false, true, false, 1, 0,
	  false, true, false, false, false, false, 0.10 },
	/* PyTorch eager with DDP or FSDP under AMP (torch.autocast; PyTorch
	 * AMP docs): fp32 master weights, eager LayerNorm/GeLU/dropout kernels
	 * at their measured rates, logits upcast to fp32 for cross-entropy
	 * (autocast runs log_softmax/nll_loss in fp32), no flash attention
	 * unless scaled_dot_product_attention is used (set
	 * parallel.flash_attention), DDP buckets of 25 MB overlapped with
	 * backward (torch.nn.parallel.DistributedDataParallel bucket_cap_mb);
	 * FSDP full sharding is ZeRO-3 (parallel.zero_stage = 3). */
	{ "pytorch_eager", "PyTorch eager DDP/FSDP with AMP: unfused kernels",
	  false, false, false, true, false, 0, 25,
	  false, true, false, false, true, false, 0.10 },
	{ NULL, NULL, false, false, false, false, false, 0, 0, false, false, false, false,
	  false, false, 0 },
};

const struct stack_spec *stack_find(const char *name)
{
	for (const struct stack_spec *s = stack_table; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}
