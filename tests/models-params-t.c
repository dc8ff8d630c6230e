/* models-params-t.c -- every preset in scenarios/models/ against the
 * parameter counts its publisher gives (total and active within 0.5%), and
 * the counts of the shapes by hand: grouped-query attention, SwiGLU,
 * untied embeddings, latent attention, MoE. */
#define _XOPEN_SOURCE 700	/* realpath */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "sim/cfg.h"
#include "models/transformer.h"

/* Load scenarios/models/NAME.cfg into m; 0 or -1. */
static int load(const char *name, struct tfm *m)
{
	char path[] = "/tmp/models-params-XXXXXX";
	struct cfg_schema *s = cfg_schema_new();
	struct scenario *sc;
	struct err e = { 0 };
	char *src = realpath(tap_srcdir(), NULL);
	int fd = src ? mkstemp(path) : -1, rc = -1;
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		free(src);
		cfg_schema_free(s);
		return -1;
	}
	/* includes resolve against the file's directory, /tmp */
	fprintf(f, "@include \"..%s/scenarios/models/%s.cfg\"\nrun = { tokens = 1e12; };\n",
		src, name);
	fclose(f);
	free(src);
	cfg_schema_add(s, tfm_settings);
	sc = sc_load(s, path, NULL, 0, &e);
	unlink(path);
	if (sc) {
		tfm_from_scenario(sc, m);
		rc = tfm_check(sc, m, &e);
		sc_free(sc);
	}
	if (rc < 0)
		tap_diag("%s: %s", name, e.msg);
	cfg_schema_free(s);
	return rc;
}

static void published(const char *name, double total, double active,
		      double active_tol, const char *src)
{
	struct tfm m;

	if (load(name, &m) < 0) {
		tap_ok(0, "%s loads", name);
		tap_ok(0, "%s loads", name);
		return;
	}
	struct tfm main = m;

	main.mtp_layers = 0;	/* the published counts leave MTP modules out */
	double p = tfm_params(&main), a = tfm_active_params(&main);
	tap_ok(fabs(p / total - 1) <= 0.005, "%s: %.4gB parameters within 0.5%% of "
	       "%.4gB (%s)", name, p / 1e9, total / 1e9, src);
	tap_ok(fabs(a / active - 1) <= active_tol, "%s: %.4gB active within %g%% of %.4gB",
	       name, a / 1e9, active_tol * 100, active / 1e9);
}

int main(void)
{
	struct tfm m;

	tap_plan(36);
	/* Published figures; a dense model's active count is its total. */
	published("gpt3-175b", 175.0e9, 175.0e9, 0.005, "Brown et al. 2020, Table 2.1");
	published("llama3-8b", 8.03e9, 8.03e9, 0.005, "Meta-Llama-3-8B model page");
	published("llama3-70b", 70.6e9, 70.6e9, 0.005, "Meta-Llama-3-70B model page");
	published("llama3-405b", 405e9, 405e9, 0.005, "Llama 3 paper, Table 3");
	/* Mixtral's 12.9B active holds both embedding tables (0.13B each):
	 * without the input one it would be 12.75B, 1.2% off */
	published("mixtral-8x7b", 46.7e9, 12.9e9, 0.005, "Mistral AI, 11 Dec 2023");
	published("mixtral-8x22b", 141e9, 39e9, 0.005, "Mistral AI, 17 Apr 2024");
	/* DeepSeek-V3's "37B activated" has two figures.  Counted as Mixtral's
	 * (both embedding tables, 0.93B each) a token passes through 37.55B
	 * (the total, 671.0B, matches to 0.01%), 1.5% above; without the input
	 * table 36.62B, 1.0% below.  Held to 1.5%, not 0.5%. */
	published("deepseek-v3", 671e9, 37e9, 0.015, "DeepSeek-V3 report, abstract");
	/* head_dim 128 with hidden 2048 and 32 heads: Q and O are 2048 x 4096
	 * (8.4M each), not 2048 x 2048; counted as hidden / heads the total
	 * would be 30.08B, 1.4% low, and the active 2.90B, 12% low.  Its active
	 * 3.35B holds both embedding tables (0.31B each), as Mixtral's does,
	 * against the card's rounded 3.3B: held to 2% */
	published("qwen3-30b-a3b", 30.5e9, 3.3e9, 0.02, "Qwen/Qwen3-30B-A3B model card");
	published("qwen3-235b-a22b", 235e9, 22e9, 0.015, "Qwen/Qwen3-235B-A22B model card");
	/* GPT-OSS-120B: the card's 5.13B active leave the input embedding out
	 * (201,088 x 2,880 = 0.579B; its Table 1 counts the unembedding), so
	 * trainsim's count, which holds both tables, is held against 5.13B +
	 * 0.579B */
	published("gpt-oss-120b", 116.83e9, 5.13e9 + 201088.0 * 2880, 0.005,
		  "openai gpt-oss model card, Table 1");
	if (load("deepseek-v3", &m) == 0)
		tap_ok(fabs(tfm_params(&m) / 685e9 - 1) <= 0.005, "deepseek-v3 with its "
		       "MTP module: %.4gB within 0.5%% of 685B (DeepSeek-V3 README)",
		       tfm_params(&m) / 1e9);
	else
		tap_ok(0, "deepseek-v3 loads");

	/* By hand.  GPT-3 shape: SC'21's 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)),
	 * l = 2, h = 64, a = 4, s = 16, V = 100: 98304 + 1664 + 7424 = 107392. */
	tfm_gpt(&m, 2, 64, 4, 16, 100);
	tap_near(tfm_params(&m), 107392, 1e-12, "GPT shape: 12 l h^2 + 13 l h + (V+s) h");
	/* Grouped-query attention, kv = 1 of 4 heads of 16: Q and O 64 x 64 each,
	 * K and V 64 x 16 each = 10240 per layer instead of 16384; biases
	 * 64 + 2 x 16 + 64 = 160 instead of 256. */
	m.kv_heads = 1;
	tap_near(tfm_params(&m), 107392 - 2 * (16384 - 10240) - 2 * (256 - 160), 1e-12,
		 "multi-query attention: K, V of h x kv d each");
	/* head_dim 32 where h / a is 16 (kv = 1): Q and O 64 x 128 each, K and
	 * V 64 x 32 each = 20480 a layer (10240 at d = 16); biases 128 + 2 x 32
	 * + 64 = 256 (160 at d = 16) */
	m.head_dim = 32;
	tap_near(tfm_params(&m), 107392 - 2 * (16384 - 20480) - 2 * (256 - 256), 1e-12,
		 "head_dim 2 h / a: Q and O h x a d, K and V h x kv d");
	/* its attention core: 2 s a (d + d) a token a layer, twice d = 16's */
	tap_near(tfm_attn_core_flops_per_token(&m), 2.0 * 16 * 4 * (32 + 32), 1e-12,
		 "head_dim: the attention core's FLOPs follow d");
	m.head_dim = 0;
	/* a sliding window of 4 tokens on every other layer (s = 16): the
	 * attention core's keys a query 0.5 x 16 + 0.5 x 4 = 10, 2 x 10 x 4 x
	 * (16 + 16) FLOPs a token a layer */
	m.window = 4;
	m.full_every = 2;
	tap_near(tfm_attn_core_flops_per_token(&m), 2.0 * 10 * 4 * (16 + 16), 1e-12,
		 "sliding window on every other layer: keys 0.5 s + 0.5 w");
	m.window = 0;
	m.full_every = 0;
	/* SwiGLU of f = 96: 3 h f = 18432 weights (GeLU 4h: 2 x 64 x 256 = 32768),
	 * biases 2f + h = 256 (GeLU f + h = 320); no biases, RMSNorm (h per
	 * norm), rotary positions (no s h), untied (V h more). */
	tfm_gpt(&m, 2, 64, 4, 16, 100);
	m.ffn_hidden = 96;
	m.mlp = TFM_SWIGLU;
	tap_near(tfm_params(&m), 107392 - 2 * (32768 - 18432) - 2 * (320 - 256), 1e-12,
		 "SwiGLU: up, gate and down, 3 h f");
	m.bias = false;
	m.norm = TFM_RMSNORM;
	m.learned_positions = false;
	m.tied_embeddings = false;
	double layer = 4 * 64.0 * 64 + 3 * 64.0 * 96 + 2 * 64;
	tap_near(tfm_params(&m), 2 * layer + 2 * 100 * 64.0, 1e-12,
		 "Llama style: no biases, RMSNorm, rotary, untied: 2 V h of embeddings");
	/* 6N + attention: forward 2 x (layer weights) + 2 s a (d + d) per layer
	 * and 2 h V for the logits, times 3 */
	double per_token = 3 * (2 * 2 * (layer - 2 * 64) + 2 * 2 * 16.0 * 4 * 32 +
				2 * 64.0 * 100);
	tap_near(tfm_model_flops_per_token(&m), per_token, 1e-12,
		 "model FLOPs per token: 3 x (2 x weights + attention + logits)");
	/* Full recomputation repeats the layers' forward, not the logits:
	 * 4/3 of the layers' part plus the same 6 h V */
	double layers_part = per_token - 6 * 64.0 * 100;
	tap_near(tfm_flops(&m, 10, true), 10 * 16 * (layers_part * 4 / 3 + 6 * 64.0 * 100),
		 1e-12, "full recomputation: 4 passes over the layers, logits 6 h V");

	/* MoE: 4 experts, top 2, 1 shared, expert width 32, first layer dense;
	 * an MoE layer holds (4 + 1) x 3 x 64 x 32 + router 64 x 4 weights,
	 * a token uses (2 + 1) of the five. */
	m.moe.experts = 4;
	m.moe.top_k = 2;
	m.moe.shared_experts = 1;
	m.moe.ffn_hidden = 32;
	m.moe.dense_layers = 1;
	double attn = 4 * 64.0 * 64, norms = 2 * 64, expert = 3 * 64.0 * 32;
	double moe_layer = attn + 5 * expert + 64 * 4 + norms;
	tap_near(tfm_params(&m), layer + moe_layer + 2 * 100 * 64.0, 1e-12,
		 "MoE: all experts and the router in the total");
	tap_near(tfm_active_params(&m), layer + moe_layer - 2 * expert + 2 * 100 * 64.0,
		 1e-12, "MoE: top-k and shared experts in the active count");
	tap_near(tfm_layer_expert_params(&m, true), 4 * expert, 1e-12,
		 "MoE: routed experts' weights of one layer");

	/* Latent attention, a = 4, q_lora 8, kv_lora 16, nope 8, rope 4, v 8:
	 * W^DQ 64x8 + W^UQ 8x(4x12) + W^DKV 64x(16+4) + W^UKV 16x(4x16)
	 * + W^O (4x8)x64 = 512 + 384 + 1280 + 1024 + 2048 = 5248, norms of
	 * the two latents 8 + 16 (RMSNorm). */
	tfm_gpt(&m, 1, 64, 4, 16, 100);
	m.bias = false;
	m.norm = TFM_RMSNORM;
	m.mla = (struct tfm_mla){ 8, 16, 8, 4, 8 };
	tap_near(tfm_layer_params(&m, false) - 2 * 64.0 * 256 - 2 * 64, 5248 + 24, 1e-12,
		 "latent attention: down and up projections and latent norms");
	/* its attention core: 2 s a (d_qk + d_v) = 2 x 16 x 4 x (12 + 8) */
	tap_near(tfm_attn_core_flops_per_token(&m), 2560, 1e-12,
		 "latent attention core: 2 s a (d_qk + d_v) per token");
	/* MTP: one module = 2 h^2 projection + 2 norms + a layer like the last */
	m.mtp_layers = 1;
	tap_near(tfm_params(&m) - tfm_main_params(&m),
		 2 * 64.0 * 64 + 2 * 64 + tfm_layer_params(&m, false), 1e-12,
		 "MTP module: projection, two norms and one more layer");
	return tap_done();
}
