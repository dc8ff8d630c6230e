/*
 * kernels.h -- how long one kernel takes on one GPU, from that GPU's
 * micro-benchmarks.
 *
 * GEMM C[M,N] = A[M,K] B[K,N] (`batch` independent ones in one call): the
 * output is cut into tiles, one thread block per tile, the tiles run in
 * waves over the SMs; each tile streams K and pays a fixed prologue and
 * epilogue.  cuBLAS picks the tile shape, a split of K (reduced through
 * fp32 partials) and persistent (stream-K) scheduling, which spreads the
 * last partial wave over all SMs; the model takes the fastest choice:
 *     t = max(waves x (2 tm tn K / split / R_sm + wave_s) + reduce,
 *             bytes / HBM roof) + launch
 * with waves = max(1, tiles/SMs).  R_sm (the achievable per-SM rate under
 * the power cap), wave_s and launch are fitted per GPU and datatype to its
 * measured GEMMs (kern_fit_gemm); where the GPU has a measured table, the
 * fitted law is corrected by the measured/model ratio, interpolated in
 * (ln M, ln N, ln K) over the rows within a factor of 2 (modified Shepard
 * weights), so every measured row is reproduced and shapes far from any
 * row get the law alone.  An FP8 GEMM takes the BF16 table's residual at
 * its shape as well (the tile grid, wave tail and cuBLAS's choices that
 * the law misses belong to the shape: an FP8 kernel tiles M and N as a
 * BF16 one does), and its own rows correct only what differs from that;
 * its law is fitted to its rows with the BF16 residual divided out
 * (kern_fp8_rows_on_bf16).  Why: the H200's FP8 table holds four squares,
 * where BF16 runs 3-7% above its law (fitted to layer shapes): fitted to
 * the squares alone, the FP8 law carried that bonus to every layer shape
 * (2.08x BF16 there against 1.88-2.02x measured on the squares).
 *
 * Flash attention (causal, as a GPT trains): a query block of 128 rows
 * visits the key blocks up to the diagonal, so a head of s tokens runs
 * nb (nb + 1) / 2 block pairs (nb = s/128) of 4 x 128^2 x d FLOPs forward
 * (what the kernel does, not the s^2 of the model's FLOP count); backward
 * 2.5x (five block matmuls to two).  With a sliding window of w tokens
 * (Mistral 7B, arXiv:2310.06825; GPT-OSS) a query block visits only its
 * own and the ceil(w/128) key blocks before it (FlashAttention's
 * window_size, cuDNN's sliding-window mask skip the others).  Time =
 * executed FLOPs / R + block_s x query blocks / SMs + launch, R and
 * block_s fitted to the measured table forward and backward, with the same
 * kind of residual over (ln seq, ln batch x heads).
 *
 * Memory-bound kernels: bytes (as the benchmark counts them: reads plus
 * writes) / (HBM bandwidth x the measured fraction for that kind).
 */
#ifndef MODELS_KERNELS_H
#define MODELS_KERNELS_H

#include <stdbool.h>

#include "sim/err.h"

#define KERN_GEMM_MAX 400
#define KERN_FP8_MAX 16
#define KERN_ATTN_MAX 32
#define KERN_BLOCK 128.0	/* flash attention's query and key block */
/* A training run holds its GPUs at their sustained clocks under the power
 * cap for hours; a benchmark that starts on an idle GPU runs its first
 * fraction of a second at boost clocks.  The H200 sweep shows it: its
 * first GEMMs after the 6 s idle phase ran 696-811 TFLOP/s, the same
 * shapes later 625-715 (4096x2048x2048: 739-760 at 0.02 s of work, 651-741
 * at 0.10-0.11 s; the rows at 16384 tokens, measured hot, 5-17% below
 * their 4096-token twins measured first), and large shapes settle at
 * 665-700.  So a table's rows measured before KERN_WARM_S of GEMM work
 * (its warm_s column: the sweep's first 19 rows) are left out of the
 * laws' fit and residuals (kernels_tsv.c).  Fitting the law to the rest
 * predicts the held-out 16384-token rows better (tests/kernels-t: 3.03%
 * mean error against 3.51%).  The threshold is read off the table, not
 * sourced. */
#define KERN_WARM_S 0.1

/* Memory-bound kernel kinds, each at its own fraction of HBM bandwidth. */
enum kern_stream {
	KS_COPY,	/* one streaming pass (also fused elementwise kernels) */
	KS_LAYERNORM,
	KS_GELU,	/* eager GeLU */
	KS_ADD,		/* eager add */
	KS_DROPOUT_ADD,	/* eager dropout then add */
	KS_SOFTMAX,	/* row softmax (fused scale-mask-softmax or eager) */
	KS_ADAM,	/* fused multi-tensor Adam */
	KS_COUNT
};
extern const char *const kern_stream_names[KS_COUNT];

/* The fitted constants of the GEMM law. */
struct kern_gemm_law {
	double sm_flops;	/* achievable per-SM rate, FLOP/s */
	double wave_s;		/* per wave: tile prologue and epilogue */
	double launch_s;	/* per call */
};

/* Measured GEMMs (batch 1) and the law's log error on each. */
struct kern_gemm_rows {
	int n;
	double m[KERN_GEMM_MAX], nn[KERN_GEMM_MAX], k[KERN_GEMM_MAX];
	double s[KERN_GEMM_MAX];
	double lnr[KERN_GEMM_MAX];	/* ln(measured / law) */
};

struct kern_attn_law {
	double fwd_flops, fwd_block_s;	/* forward: rate, per query block */
	double bwd_flops, bwd_block_s;	/* backward (2.5x the forward FLOPs) */
	double launch_s;
	bool waves;	/* tiles go out in waves, one an SM (kernels.c attn_work) */
};

struct kern_attn_rows {
	int n;
	double bh[KERN_ATTN_MAX], seq[KERN_ATTN_MAX], d[KERN_ATTN_MAX];
	double fwd_s[KERN_ATTN_MAX], bwd_s[KERN_ATTN_MAX];
	double lnr_fwd[KERN_ATTN_MAX], lnr_bwd[KERN_ATTN_MAX];
};

struct kern_gpu {
	int sms;
	double hbm_Bps;
	double stream_frac[KS_COUNT];	/* achieved / HBM bandwidth per kind */
	double launch_s;		/* elementwise kernels */
	struct kern_gemm_law bf16, fp8;
	struct kern_attn_law attn;
	/* measured tables (n = 0: the laws alone) */
	struct kern_gemm_rows gemm_bf16, gemm_fp8;
	struct kern_attn_rows attn_rows;
};

/* A GPU's measured tables as read from its folder (kernels_tsv.c). */
struct kern_tables {
	struct kern_gemm_rows bf16, fp8;
	struct kern_attn_rows attn;
};
/* The tables in folder dir (gemm-bf16.tsv, gemm-fp8.tsv, attention.tsv)
 * copied into out: read at the first call and kept for the process; a
 * usage error naming FILE:LINE: column for a malformed file. */
int kern_tables_load(const char *dir, struct kern_tables *out, struct err *e);

/* GEMM time: the law, times the measured residual where there is one. */
double kern_gemm_s(const struct kern_gpu *k, bool fp8, double batch,
		   double M, double N, double K);
/* The law alone. */
double kern_gemm_law_s(const struct kern_gpu *k, const struct kern_gemm_law *law,
		       double batch, double M, double N, double K);
/* Flash attention over bh = batch x heads heads of seq tokens, head dim d,
 * each query attending to the keys within `window` tokens before it (0:
 * all before it): the key blocks a query block visits shrink to the
 * window's, the per-block work and the residual stay the kernel's. */
double kern_attn_fwd_s(const struct kern_gpu *k, double bh, double seq, double d,
		       double window);
double kern_attn_bwd_s(const struct kern_gpu *k, double bh, double seq, double d,
		       double window);
/* The FLOPs the causal kernel executes forward (backward: 2.5x). */
double kern_attn_fwd_flops(double bh, double seq, double d, double window);
/* A full block, no mask: bh heads of q queries each attending to all kv
 * keys (ring attention's steps off the diagonal), forward or backward
 * (the law and the measured rows' residual at q tokens), and its forward
 * FLOPs. */
double kern_attn_block_s(const struct kern_gpu *k, bool bwd, double bh, double q, double kv,
			 double d);
double kern_attn_block_flops(double bh, double q, double kv, double d);
/* A memory-bound kernel of `kind` moving `bytes`. */
double kern_stream_s(const struct kern_gpu *k, enum kern_stream kind, double bytes);

/* Fit a GEMM law to rows[i] for which use[i] (NULL: all) by least squares
 * on ln(model/measured); law holds the starting point and the result. */
void kern_fit_gemm(const struct kern_gpu *k, const struct kern_gemm_rows *rows,
		   const bool *use, int nfree, struct kern_gemm_law *law);
/* rows with each time divided by the BF16 table's residual at its shape:
 * what an FP8 law is fitted to (k's BF16 residuals filled). */
void kern_fp8_rows_on_bf16(const struct kern_gpu *k, const struct kern_gemm_rows *rows,
			   struct kern_gemm_rows *out);
/* Fit the attention law to the table (weighted linear least squares). */
void kern_fit_attn(const struct kern_gpu *k, const struct kern_attn_rows *rows,
		   struct kern_attn_law *law);
/* The same from forward+backward times alone (rows' fwd_s; published
 * figures often give only the sum): two constants, the backward's rate and
 * per-block cost held in law's ratios to the forward's (a shape donor's
 * law on entry, as the A100 takes H200's). */
void kern_fit_attn_total(const struct kern_gpu *k, const struct kern_attn_rows *rows,
			 struct kern_attn_law *law);
/* Fill the tables' residuals against the current laws. */
void kern_residuals(struct kern_gpu *k);
/* The best fraction of `peak` any GEMM or attention call reaches per model
 * FLOP (attention: its causal half counted as the full square, as the
 * model's FLOP count does); for lower bounds on time. */
double kern_best_eff(const struct kern_gpu *k, bool fp8, double peak);

#endif
