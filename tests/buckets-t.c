/* buckets-t.c -- how a DDP cuts a chunk's gradients into buckets
 * (models/buckets.h).  Each count is walked by hand below from the
 * weights' sizes per GPU, in reverse order, a bucket closing once it holds
 * the bucket size or more (Megatron-Core param_and_grad_buffer.py). */
#include <string.h>

#include "tests/tap.h"
#include "models/buckets.h"

int main(void)
{
	struct tfm m;
	struct layout L;

	tap_plan(6);
	/* GPT, h 1024, 8 heads, GeLU MLP of 4096, TP 1: fc2 and fc1 4.19M
	 * elements each, proj 1.05M, QKV 3.15M.  Two layers at 5M a bucket:
	 * fc2 4.19; + fc1 8.39 closes (1); proj 1.05 + QKV 4.19 + fc2 8.39
	 * closes (2); fc1 4.19 + proj 5.24 closes (3); QKV 3.15 left open (4) */
	tfm_gpt(&m, 2, 1024, 8, 2048, 1000);
	memset(&L, 0, sizeof L);
	L.tp = 1;
	tap_near(bkt_chunk_buckets(&m, &L, 0, 2, false, 5e6), 4, 1e-12,
		 "two GPT layers at 5M elements: 4 buckets");
	/* with the head first (1000 x 1024 = 1.02M): 1.02 + fc2 closes (1),
	 * fc1 + proj (2), QKV + fc2 (3), fc1 + proj (4), QKV open (5) */
	tap_near(bkt_chunk_buckets(&m, &L, 0, 2, true, 5e6), 5, 1e-12,
		 "with the output head: 5 buckets");
	/* a bucket larger than the chunk: one */
	tap_near(bkt_chunk_buckets(&m, &L, 0, 2, true, 1e9), 1, 1e-12,
		 "one bucket when it holds the chunk");
	/* Nemotron-4 340B at TP 8 (h 18432, 96 heads, 8 KV heads of 192,
	 * squared-ReLU MLP of 73728): fc2 and fc1 169.9M, proj 42.5M, QKV
	 * 49.5M -- each over Megatron's 40M, a bucket each: 4 a layer, 96
	 * for 24 layers, where the parameter count over 40M gives 254 */
	tfm_gpt(&m, 96, 18432, 96, 4096, 256000);
	m.kv_heads = 8;
	m.ffn_hidden = 73728;
	L.tp = 8;
	tap_near(bkt_chunk_buckets(&m, &L, 0, 24, false, 40e6), 96, 1e-12,
		 "Nemotron-4 340B, TP 8: 4 buckets a layer");
	/* An MoE layer: 4 routed experts of width 512 over EP 2 (2 local,
	 * each fc2 0.52M, fc1 0.52M at ETP 1) fill the expert buffer, 2.1M
	 * in all: at 1.5M a bucket, fc2 fc1 fc2 closes (1), fc1 open (2);
	 * the dense buffer: router 4096, proj 1.05M, QKV 3.15M: the QKV
	 * closes it (1).  3 buckets */
	tfm_gpt(&m, 1, 1024, 8, 2048, 1000);
	m.moe.experts = 4;
	m.moe.ffn_hidden = 512;
	L.tp = 1;
	L.ep = 2;
	tap_near(bkt_chunk_buckets(&m, &L, 0, 1, false, 1.5e6), 3, 1e-12,
		 "MoE layer: experts' buffer 2, dense 1");
	/* with a shared expert of width 512 in the dense buffer: fc2 0.52M,
	 * fc1 0.52M, router, proj: 2.1M closes (1), QKV open (2): 4 */
	m.moe.shared_experts = 1;
	tap_near(bkt_chunk_buckets(&m, &L, 0, 1, false, 1.5e6), 4, 1e-12,
		 "MoE layer with a shared expert: 4 buckets");
	return tap_done();
}
