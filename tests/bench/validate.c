/*
 * validate.c -- `make validate` (tests/bench/validate-b DIR): trainsim held
 * against published measurements in two tables kept apart.
 *
 *   CALIBRATION  data a constant was fitted or back-solved to, so a small
 *                error there shows the fit, not the model's accuracy:
 *                Megatron-LM Table 1 (Narayanan et al. SC'21; the GEMM
 *                curve and elementwise bandwidth in gpus.cfg were fitted to
 *                it), the NVLink all-reduce busbw (nccl-tests#149: the
 *                catalog's NVLink efficiency is 230/300) with the two-node
 *                HDR busbw (nccl#812), the Omni-Path busbw on Jean Zay
 *                (BigScience's all_reduce_bench: opa_100's efficiency),
 *                and Patterson et al. 2021 (the run's
 *                efficiency was back-solved from their 24.6 TFLOP/s).
 *   VALIDATION   independent published results, nothing fitted to them:
 *                DIR/independent.tsv, one row per measurement, each with
 *                its scenario DIR/ID.cfg (columns: DIR/README).  The
 *                published figure is turned into seconds per iteration
 *                with the source's own FLOP formula, and the step model's
 *                iteration time is compared with it, so FLOP-counting
 *                conventions cannot hide or add error.  Rows whose
 *                settings trainsim lacks are listed as pending, not run.
 *
 *   ENERGY       whole-run energy against published figures: DIR/energy.tsv,
 *                one row per figure with its scenario (defaults but for the
 *                run as published and the site's PUE), ours counted as the
 *                source counts it (its whole operational energy, the GPUs'
 *                measured energy, or GPU-hours x a nominal power) and our
 *                facility energy_kwh,
 *                with GPU-hours beside them to tell duration from power.
 *
 * Then the validation residuals per GPU and stack (n, mean and max |error|,
 * mean signed error), the form error bands take.  Error is always
 * predicted throughput over published minus 1: positive = trainsim too
 * fast (optimistic).
 *
 * `-s KEY=VALUE` (repeatable) overrides a setting in every step-model row of
 * both tables, for sensitivity studies.
 *
 * Exit 1 when Table 1 misses the targets (mean <= 5%, every row
 * within 10%) or a runnable row cannot be run; a validation row's error is
 * reported, never a target.  The last lines are for tests/step-validate.sh:
 *   table1: mean M max X
 *   validation: ran N of R runnable rows, P pending
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg.h"
#include "sim/report.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/parallel.h"
#include "models/run.h"
#include "models/step.h"
#include "models/transformer.h"
#include "topologies/net.h"
#include "tests/step-load.h"
#include "tests/bench/validate-layer.h"
#include "tests/bench/validate-memory.h"
#include "tests/bench/vtsv.h"

#define T1_ROWS 10
#define VROWS_MAX 256
#define FIELD 128
#define OVERRIDES_MAX 32

/* -s KEY=VALUE, applied to every step-model row */
static const char *overrides[OVERRIDES_MAX];
static size_t n_overrides;

/* One line of either table. */
struct line {
	char id[FIELD], gpu[FIELD], layout[FIELD], batch[FIELD], stack[FIELD];
	char source[FIELD], unit[16];
	double published, predicted, err_pct;
};

static void line_print_head(void)
{
	printf("%-24s %-10s %5s %-19s %-9s %-18s %10s %10s %-6s %7s  %s\n", "row", "gpu", "gpus",
	       "layout", "batch", "stack", "published", "predicted", "unit", "error", "source");
}

static void line_print(const struct line *l, int gpus)
{
	printf("%-24s %-10s %5d %-19s %-9s %-18s %10.2f %10.2f %-6s %+6.1f%%  %s\n", l->id, l->gpu,
	       gpus, l->layout, l->batch, l->stack, l->published, l->predicted, l->unit, l->err_pct,
	       l->source);
}

struct stats {
	int n;
	double sum_abs, max_abs, sum;
};

static void stats_add(struct stats *s, double err_pct)
{
	s->n++;
	s->sum_abs += fabs(err_pct);
	s->sum += err_pct;
	if (fabs(err_pct) > s->max_abs)
		s->max_abs = fabs(err_pct);
}

static double stats_mean_abs(const struct stats *s)
{
	return s->n ? s->sum_abs / s->n : 0;
}

/* ---- step model on one scenario ---- */

static int row_simulate(const struct cfg_schema *schema, const char *path, struct step_result *r,
		    struct layout *L_out, double *band_out, char *stack_out, struct err *e)
{
	struct step_job j;
	int rc = step_job_run(schema, path, overrides, n_overrides, &j, e);

	*r = j.r;
	if (L_out)
		*L_out = j.L;
	/* the band a run of this scenario reports (run_model.c) */
	if (band_out)
		*band_out = rc < 0 ? 0 : gpu_band(j.sc, &j.g, j.cfg.par.stack,
						  j.cfg.par.stack_band, j.m.moe.experts > 0);
	/* the stack the scenario runs, whatever its row says, and "+moe" for
	 * a model with experts: its rows set the pair's MoE band */
	if (stack_out)
		snprintf(stack_out, FIELD, "%s%s", rc < 0 ? "" : sc_str(j.sc, "training.stack"),
			 rc == 0 && j.m.moe.experts > 0 ? "+moe" : "");
	step_job_free(&j);
	return rc;
}

/* ---- calibration: Megatron-LM Table 1 ---- */

static int table1_read(const char *dir, double *tflops, double *params_b)
{
	char path[4096], buf[1024];
	int n = 0;

	snprintf(path, sizeof path, "%s/megatron-table1.tsv", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(buf, sizeof buf, f) && n < T1_ROWS) {
		double v[10];
		if (buf[0] == '#' || sscanf(buf, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1],
					    &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
					    &v[9]) != 10)
			continue;
		params_b[n] = v[0];
		tflops[n++] = v[9];
	}
	fclose(f);
	return n == T1_ROWS ? 0 : -1;
}

static int table1(const struct cfg_schema *schema, const char *dir, struct stats *st)
{
	double pub[T1_ROWS], params_b[T1_ROWS];
	int status = 0;

	if (table1_read(dir, pub, params_b) < 0) {
		fprintf(stderr, "validate: cannot read %s/megatron-table1.tsv\n", dir);
		return 1;
	}
	for (int i = 0; i < T1_ROWS; i++) {
		char path[4096];
		struct step_result r;
		struct layout L;
		struct err e = { 0 };

		snprintf(path, sizeof path, "%s/megatron-table1-%d.cfg", dir, i + 1);
		if (row_simulate(schema, path, &r, &L, NULL, NULL, &e) < 0) {
			fprintf(stderr, "%s: %s\n", path, e.msg);
			status = 1;
			continue;
		}
		struct line l = { .published = pub[i], .predicted = r.tflops_per_gpu };
		l.err_pct = (r.tflops_per_gpu - pub[i]) / pub[i] * 100;
		snprintf(l.id, sizeof l.id, "table1-%d (%.1fB)", i + 1, params_b[i]);
		snprintf(l.gpu, sizeof l.gpu, "a100_80gb");
		snprintf(l.layout, sizeof l.layout, "TP%d PP%d DP%d", L.tp, L.pp, L.dp);
		snprintf(l.batch, sizeof l.batch, "%dx%d", L.global_batch, L.micro_batch);
		snprintf(l.stack, sizeof l.stack, "megatron-lm-2021");
		snprintf(l.unit, sizeof l.unit, "TFLOP/s");
		snprintf(l.source, sizeof l.source, "Narayanan et al. SC'21 Table 1");
		line_print(&l, L.gpus);
		stats_add(st, l.err_pct);
	}
	return status;
}

/* ---- calibration: NCCL busbw and Patterson et al. ---- */

/* One measured all-reduce (a ring over the scenario's first `ranks` GPUs)
 * that a link's efficiency was taken from or is checked against. */
struct busbw_meas {
	const char *id, *scenario;	/* the scenario in DIR: the cluster */
	int ranks;
	double bytes, busbw_GBps;	/* nccl-tests' S and the measured busbw */
	const char *size, *source;
};

static const struct busbw_meas busbw_meas[] = {
	/* Table 1 row 1's cluster: DGX A100, 8 x HDR per node */
	{ "allreduce-busbw-8", "megatron-table1-1.cfg", 8, 1 << 30, 230, "1 GiB",
	  "nccl-tests#149 (fitted)" },
	{ "allreduce-busbw-16", "megatron-table1-1.cfg", 16, 1 << 30, 192, "1 GiB",
	  "nccl#812 (IB eff. nccl-tests#267)" },
	/* Jean Zay's A100 nodes on Omni-Path (links.cfg opa_100): 4e9 bytes
	 * of fp32 in 1.529 s, printed as 40.5532 Gb/s busbw */
	{ "allreduce-busbw-32-opa", "bloom-176b-384.cfg", 32, 4e9, 40.5532 / 8, "4e9 B",
	  "bigscience all_reduce_bench-a100-n4 (fitted)" },
};

static int busbw_row(const struct cfg_schema *schema, const char *dir,
		     const struct busbw_meas *m)
{
	char path[4096];
	int gpus[64];
	struct err e = { 0 };
	int n = m->ranks;

	snprintf(path, sizeof path, "%s/%s", dir, m->scenario);
	struct scenario *sc = sc_load(schema, path, NULL, 0, &e);
	struct net_cfg *ncfg = sc ? net_cfg_from_scenario(sc, &e) : NULL;
	struct net *net = ncfg ? net_build(ncfg, &e) : NULL;
	double t = -1;
	if (net) {
		for (int i = 0; i < n; i++)
			gpus[i] = i;
		struct coll c = { COLL_ALL_REDUCE, COLL_RING, gpus, n, m->bytes, 0 };
		t = net_coll_time_s(net, &c, &e);
	}
	net_free(net);
	net_cfg_free(ncfg);
	sc_free(sc);
	if (t <= 0) {
		fprintf(stderr, "%s: %s\n", m->id, e.msg);
		return 1;
	}
	struct line l = { .published = m->busbw_GBps };
	l.predicted = m->bytes / t * 2.0 * (n - 1) / n / 1e9;
	l.err_pct = (l.predicted - l.published) / l.published * 100;
	snprintf(l.id, sizeof l.id, "%s", m->id);
	snprintf(l.gpu, sizeof l.gpu, "a100_80gb");
	snprintf(l.layout, sizeof l.layout, "%d node(s)", (n + 7) / 8);
	snprintf(l.batch, sizeof l.batch, "%s", m->size);
	snprintf(l.stack, sizeof l.stack, "nccl ring");
	snprintf(l.unit, sizeof l.unit, "GB/s");
	snprintf(l.source, sizeof l.source, "%s", m->source);
	line_print(&l, n);
	return 0;
}

/* Megatron-Core's host time per framework op (models/stack.c
 * MCORE_HOST_OP_US) was fitted to the slope between two layouts of the
 * same tiny GPT in Megatron-LM's CI (megatron-ci-gpt-*.cfg: medians of
 * 0.1195 and 0.1958 s an iteration, 5 x 6 and 9 x 6 layer-steps of the
 * 1F1B pipeline): 3.18 ms more a layer-step.  The slope, not the times,
 * because the tests' logging each iteration (parameter norms, zero counts
 * of every gradient) is a per-iteration cost trainsim does not price.
 * The same two tests on the CI's other platforms give the other hosts'
 * host_op_scale (nodes.cfg): GB200 (recipe tests/test_utils/recipes/
 * gb200/gpt.yaml: 2 trays of 4, the same 8 ranks; goldens of the same
 * commit, 0.1679 and 0.3036 s), Grace's slope, 5.65 ms; DGX A100 (CI
 * cluster dgxa100_dracooci; goldens of commit adc69dba2d, 2025-10-21,
 * 0.1742 and 0.2883 s, when the H100's were 0.1417 and 0.2291): its slope
 * over the H100's of the same commit, 1.306x. */
struct ci_platform {
	const char *id, *gpu;
	double pub_s[2];		/* the two tests' golden medians */
	const char *ov[4];		/* the platform, as overrides */
	double ref_pub_s[2];		/* > 0: a ratio row, over the H100's of
					 * the same commit */
};

static const struct ci_platform ci_platforms[] = {
	{ "mcore-ci-host-slope", "h100_sxm", { 0.1195, 0.1958 }, { NULL }, { 0, 0 } },
	{ "mcore-ci-host-slope-gb200", "gb200", { 0.1679, 0.3036 },
	  { "cluster.gpu=\"gb200\"", "cluster.gpus_per_node=4", "network.nics_per_node=4",
	    "network.scale_up_domain_gpus=8" }, { 0, 0 } },
	{ "mcore-ci-host-ratio-a100", "a100_80gb", { 0.1742, 0.2883 },
	  { "cluster.gpu=\"a100_80gb\"", "network.scale_out_link=\"ib_hdr\"" },
	  { 0.1417, 0.2291 } },
};

/* trainsim's host slope of the two CI tests on a platform, ms a
 * layer-step (24 more from the first to the second); < 0 on error. */
static double ci_slope_ms(const struct cfg_schema *schema, const char *dir,
			  const char *const *pf_ov)
{
	static const char *const file[2] = { "megatron-ci-gpt-tp2pp2.cfg",
					     "megatron-ci-gpt-tp4pp2.cfg" };
	const char *ov[OVERRIDES_MAX + 4];
	size_t n_ov = 0;
	double pred_s[2];

	for (size_t i = 0; i < 4 && pf_ov && pf_ov[i]; i++)
		ov[n_ov++] = pf_ov[i];
	for (size_t i = 0; i < n_overrides; i++)
		ov[n_ov++] = overrides[i];
	for (int i = 0; i < 2; i++) {
		char path[4096];
		struct step_job j;
		struct err e = { 0 };

		snprintf(path, sizeof path, "%s/%s", dir, file[i]);
		int rc = step_job_run(schema, path, ov, n_ov, &j, &e);
		pred_s[i] = j.r.iteration_s;
		step_job_free(&j);
		if (rc < 0) {
			fprintf(stderr, "%s: %s\n", path, e.msg);
			return -1;
		}
	}
	return (pred_s[1] - pred_s[0]) / 24 * 1e3;
}

static int host_slope_row(const struct cfg_schema *schema, const char *dir,
			  const struct ci_platform *pf)
{
	bool ratio = pf->ref_pub_s[0] > 0;
	double pred = ci_slope_ms(schema, dir, pf->ov);
	double ref = ratio ? ci_slope_ms(schema, dir, NULL) : 1;

	if (pred < 0 || ref < 0)
		return 1;
	struct line l = { .published = (pf->pub_s[1] - pf->pub_s[0]) / 24 * 1e3,
			  .predicted = pred / ref };
	if (ratio)
		l.published /= (pf->ref_pub_s[1] - pf->ref_pub_s[0]) / 24 * 1e3;
	l.err_pct = (l.predicted - l.published) / l.published * 100;
	snprintf(l.id, sizeof l.id, "%s", pf->id);
	snprintf(l.gpu, sizeof l.gpu, "%s", pf->gpu);
	snprintf(l.layout, sizeof l.layout, "TP2-4 PP2, 12 layers");
	snprintf(l.batch, sizeof l.batch, "32x4");
	snprintf(l.stack, sizeof l.stack, "megatron-core");
	snprintf(l.unit, sizeof l.unit, ratio ? "ratio" : "ms/lstep");
	snprintf(l.source, sizeof l.source, "Megatron-LM CI goldens (fitted)");
	line_print(&l, 8);
	return 0;
}

static int patterson_rows(const char *dir)
{
	char path[4096];
	struct err e = { 0 };
	struct cfg_schema *schema = run_schema_new();
	struct report *rep = rep_new();
	struct run_opts o = { .seed = 1 };
	int status = 1;

	snprintf(path, sizeof path, "%s/gpt3-patterson.cfg", dir);
	struct scenario *sc = schema && rep ? sc_load(schema, path, NULL, 0, &e) : NULL;
	if (sc && run_simulate(sc, &o, rep, &e) == 0) {
		static const struct {
			const char *id, *key, *unit;
			double scale, published;
		} rows[] = {
			{ "patterson-days", "duration_s", "days", 1.0 / 86400, 14.8 },
			{ "patterson-energy", "energy_kwh", "MWh", 1e-3, 1287 },
			{ "patterson-carbon", "carbon_kg", "tCO2e", 1e-3, 552 },
		};
		for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
			struct line l = { .published = rows[i].published };
			l.predicted = rep_summary_get(rep, rows[i].key) * rows[i].scale;
			l.err_pct = (l.predicted - l.published) / l.published * 100;
			snprintf(l.id, sizeof l.id, "%s", rows[i].id);
			snprintf(l.gpu, sizeof l.gpu, "v100_32gb");
			snprintf(l.layout, sizeof l.layout, "formula model");
			snprintf(l.batch, sizeof l.batch, "1250x1");
			snprintf(l.stack, sizeof l.stack, "(back-solved)");
			snprintf(l.unit, sizeof l.unit, "%s", rows[i].unit);
			snprintf(l.source, sizeof l.source, "Patterson et al. 2021 Table 4");
			line_print(&l, 10000);
		}
		status = 0;
	} else {
		fprintf(stderr, "%s: %s\n", path, e.msg);
	}
	sc_free(sc);
	rep_free(rep);
	cfg_schema_free(schema);
	return status;
}

/* ---- energy: energy.tsv ---- */

/* One published whole-run energy figure and what it counts. */
struct erow {
	char id[FIELD], source[FIELD], scenario[FIELD], counts[32];
	double kwh, gpu_hours, count_w, count_pue;
};

static int erow_parse(char *line, struct erow *r)
{
	char *f[8], *save = NULL;
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	for (char *t = strtok_r(line, "\t", &save); t && n < 8; t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	if (n != 8)
		return -1;
	snprintf(r->id, sizeof r->id, "%s", f[0]);
	snprintf(r->source, sizeof r->source, "%s", f[1]);
	snprintf(r->scenario, sizeof r->scenario, "%s", f[2]);
	snprintf(r->counts, sizeof r->counts, "%s", f[3]);
	r->kwh = atof(f[4]);
	r->gpu_hours = atof(f[5]);
	r->count_w = atof(f[6]);
	r->count_pue = atof(f[7]);
	return strcmp(r->counts, "operational") == 0 || strcmp(r->counts, "gpu_measured") == 0 ||
	       strcmp(r->counts, "gpu_hours_x_w") == 0 ? 0 : -1;
}

static double pct(double ours, double published)
{
	return (ours - published) / published * 100;
}

/* Run one row's scenario (defaults but for what the file sets) and print
 * ours counted as the source counts, our facility energy, and GPU-hours. */
static int energy_row(const struct cfg_schema *schema, const char *dir, const struct erow *r,
		      struct stats *whole, struct stats *conv)
{
	char path[4096];
	struct err e = { 0 };
	struct report *rep = rep_new();
	struct run_opts o = { .seed = 1 };
	struct scenario *sc;
	int status = 1;

	snprintf(path, sizeof path, "%s/%s", dir, r->scenario);
	sc = rep ? sc_load(schema, path, NULL, 0, &e) : NULL;
	if (sc && run_simulate(sc, &o, rep, &e) == 0) {
		double kwh = rep_summary_get(rep, "energy_kwh");
		double gh = rep_summary_get(rep, "gpu_hours");
		bool conv_row = strcmp(r->counts, "gpu_hours_x_w") == 0;
		double same = conv_row ? gh * r->count_w / 1e3 * r->count_pue :
			      strcmp(r->counts, "gpu_measured") == 0 ?
			      rep_summary_get(rep, "gpu_energy_kwh") : kwh;

		printf("%-20s %10.0f %-14s %10.0f %+6.1f%% %10.0f %+6.1f%% %9.0f %9.0f %+6.1f%%  %s\n",
		       r->id, r->kwh, r->counts, same, pct(same, r->kwh), kwh, pct(kwh, r->kwh),
		       r->gpu_hours, gh, pct(gh, r->gpu_hours), r->source);
		/* a whole-run figure (operational, or the GPUs' measured
		 * energy) against ours; a convention (GPU-hours x a power)
		 * against ours counted the same way */
		stats_add(conv_row ? conv : whole, pct(same, r->kwh));
		status = 0;
	} else {
		fprintf(stderr, "%s: %s\n", path, e.msg);
	}
	sc_free(sc);
	rep_free(rep);
	return status;
}

static int energy(const char *dir)
{
	char path[4096], line[1024];
	struct cfg_schema *schema = run_schema_new();
	struct stats whole = { 0 }, conv = { 0 };
	FILE *f;
	int status = 0;

	snprintf(path, sizeof path, "%s/energy.tsv", dir);
	f = fopen(path, "r");
	if (f == NULL || schema == NULL) {
		fprintf(stderr, "%s: cannot read\n", path);
		if (f)
			fclose(f);
		cfg_schema_free(schema);
		return 1;
	}
	printf("%-20s %10s %-14s %10s %7s %10s %7s %9s %9s %7s  %s\n", "row", "published",
	       "counts", "ours,same", "error", "ours,all", "error", "GPU-h pub", "GPU-h",
	       "error", "source");
	while (fgets(line, sizeof line, f)) {
		struct erow r;
		if (line[0] == '#' || strncmp(line, "id\t", 3) == 0 || line[0] == '\n')
			continue;
		if (erow_parse(line, &r) < 0) {
			fprintf(stderr, "%s: bad row: %s\n", path, line);
			status = 1;
			continue;
		}
		status |= energy_row(schema, dir, &r, &whole, &conv);
	}
	fclose(f);
	cfg_schema_free(schema);
	printf("%-24s %d rows, mean |error| %.1f%%, max %.1f%% (target: within 5%%)\n",
	       "  whole-run energy:", whole.n, stats_mean_abs(&whole), whole.max_abs);
	printf("%-24s %d rows, mean |error| %.1f%%, max %.1f%%\n", "  GPU-hour conventions:",
	       conv.n, stats_mean_abs(&conv), conv.max_abs);
	return status;
}

/* ---- validation: independent.tsv ---- */

enum vcol {
	C_ID, C_SOURCE, C_DATE, C_LAYERS, C_HIDDEN, C_HEADS, C_KV_HEADS, C_FFN, C_MLP, C_VOCAB,
	C_SEQ, C_GPU, C_GPUS, C_TP, C_PP, C_DP, C_CP, C_EP, C_VP, C_GBS, C_MBS, C_RECOMPUTE,
	C_PRECISION, C_STACK, C_METRIC, C_PUBLISHED, C_STATUS, C_N
};
static const char *const vcol_name[C_N] = {
	"id", "source", "date", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "mlp",
	"vocab", "seq_len", "gpu", "gpus", "tp", "pp", "dp", "cp", "ep", "vp", "global_batch",
	"micro_batch", "recompute", "precision", "stack", "metric", "published", "status",
};

struct vrow {
	char f[C_N][FIELD];
};

static double num(const struct vrow *r, enum vcol c)
{
	return atof(r->f[c]);
}

/* Rows of DIR/independent.tsv, columns found by the header's names. */
static int vrows_read(const char *dir, struct vrow *rows, int max)
{
	char path[4096], buf[8192];
	int col[C_N], n = 0, have_header = 0;

	snprintf(path, sizeof path, "%s/independent.tsv", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	char *field[64];
	int nf;
	while ((nf = vtsv_next(f, buf, sizeof buf, field, 64)) >= 0) {
		if (!have_header) {
			for (int c = 0; c < C_N; c++) {
				col[c] = -1;
				for (int k = 0; k < nf; k++)
					if (strcmp(field[k], vcol_name[c]) == 0)
						col[c] = k;
				if (col[c] < 0) {
					fprintf(stderr, "%s: no column %s\n", path, vcol_name[c]);
					fclose(f);
					return -1;
				}
			}
			have_header = 1;
			continue;
		}
		if (n == max) {		/* never drop a row unseen */
			fprintf(stderr, "%s: more than %d rows (VROWS_MAX)\n", path, max);
			fclose(f);
			return -1;
		}
		for (int c = 0; c < C_N; c++)
			snprintf(rows[n].f[c], FIELD, "%s", col[c] < nf ? field[col[c]] : "");
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Seconds per iteration implied by the published figure, with the
 * source's own FLOP formula:
 *   tflops_megatron21  96 B s l h^2 (1 + s/6h + V/16lh): Narayanan et al.
 *                      SC'21 eq. (3), full recomputation counted (used by
 *                      Megatron-LM 2021, Megatron-DeepSpeed, BLOOM);
 *   tflops_megatron24  12 B s l h^2 ((1 + g/a + s/h) + (f/h) x 3/2 if gated
 *                      + V/2lh): NVIDIA/Megatron-LM core_r0.8.0
 *                      megatron/training/training.py,
 *                      num_floating_point_operations (no recomputation);
 *   iter_s             the published seconds per iteration;
 *   tokens_s_gpu       tokens per second per GPU, as measured: an
 *                      iteration's B s tokens over gpus x that rate;
 *   mfu_6n_312         MFU in percent of the A100's 312 TFLOP/s, a token
 *                      counted as 6N + 12 l h s FLOPs with N = 12 l h^2 +
 *                      13 l h + V h (a GPT's weights, biases and tied
 *                      embedding): MegaScale (arXiv:2402.15627), whose
 *                      Table 2 MFUs (53.0% at 40.0 s, 41.2% at 8.57 s)
 *                      this reproduces from its iteration times.
 */
static double vrow_measured_s(const struct vrow *r)
{
	double B = num(r, C_GBS), s = num(r, C_SEQ), l = num(r, C_LAYERS), h = num(r, C_HIDDEN);
	double a = num(r, C_HEADS), g = num(r, C_KV_HEADS), ff = num(r, C_FFN), V = num(r, C_VOCAB);
	double pub = num(r, C_PUBLISHED), gpus = num(r, C_GPUS), flops;
	const char *metric = r->f[C_METRIC];

	if (strcmp(metric, "iter_s") == 0)
		return pub;
	if (strcmp(metric, "tokens_s_gpu") == 0)
		return pub > 0 ? B * s / (gpus * pub) : -1;
	if (strcmp(metric, "mfu_6n_312") == 0) {
		double N = 12 * l * h * h + 13 * l * h + V * h;

		return pub > 0 ? B * s * (6 * N + 12 * l * h * s) / (gpus * pub / 100 * 312e12) : -1;
	}
	if (strcmp(metric, "tflops_megatron21") == 0)
		flops = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
	else if (strcmp(metric, "tflops_megatron24") == 0)
		flops = 12 * B * s * l * h * h *
			((1 + g / a + s / h) + ff / h * (strcmp(r->f[C_MLP], "swiglu") == 0 ? 1.5 : 1)
			 + V / (2 * l * h));
	else
		return -1;
	return flops / (gpus * pub * 1e12);
}

static void vrow_line(const struct vrow *r, struct line *l)
{
	memset(l, 0, sizeof *l);
	snprintf(l->id, sizeof l->id, "%.*s", FIELD - 1, r->f[C_ID]);
	snprintf(l->gpu, sizeof l->gpu, "%s", r->f[C_GPU]);
	int n = snprintf(l->layout, sizeof l->layout, "TP%s PP%s DP%s", r->f[C_TP], r->f[C_PP],
			 r->f[C_DP]);
	if (num(r, C_CP) > 1)
		n += snprintf(l->layout + n, sizeof l->layout - (size_t)n, " CP%s", r->f[C_CP]);
	if (num(r, C_VP) > 1)
		snprintf(l->layout + n, sizeof l->layout - (size_t)n, " V%s", r->f[C_VP]);
	snprintf(l->batch, sizeof l->batch, "%sx%s", r->f[C_GBS], r->f[C_MBS]);
	snprintf(l->stack, sizeof l->stack, "%s", r->f[C_STACK]);
	snprintf(l->source, sizeof l->source, "%s (%s)", r->f[C_SOURCE], r->f[C_DATE]);
	snprintf(l->unit, sizeof l->unit, "s/iter");
}

/* Residuals grouped by GPU and stack, in first-seen order. */
struct group {
	char gpu[FIELD], stack[FIELD];
	struct stats st;
	double band_min;	/* the narrowest band its rows report */
	int outside;		/* rows whose |error| exceeds their band */
};

static void group_add(struct group *g, int *n, const char *gpu, const char *stack, double err,
		      double band)
{
	int i;

	for (i = 0; i < *n; i++)
		if (strcmp(g[i].gpu, gpu) == 0 && strcmp(g[i].stack, stack) == 0)
			break;
	if (i == *n) {
		memset(&g[i], 0, sizeof g[i]);
		snprintf(g[i].gpu, FIELD, "%s", gpu);
		snprintf(g[i].stack, FIELD, "%s", stack);
		g[i].band_min = band;
		(*n)++;
	}
	stats_add(&g[i].st, err);
	g[i].band_min = fmin(g[i].band_min, band);
	g[i].outside += fabs(err) > band * 100;
}

/* Rows grouped by where they came from: one published source on one GPU,
 * the unit an independent check scores (a source's mean error), kept in
 * the order of its date so that releases of one framework read in turn. */
struct src_group {
	char source[FIELD], gpu[FIELD], date[FIELD];
	struct stats st;
};

static void src_add(struct src_group *g, int *n, const struct vrow *r, double err)
{
	int i;

	for (i = 0; i < *n; i++)
		if (strcmp(g[i].source, r->f[C_SOURCE]) == 0 && strcmp(g[i].gpu, r->f[C_GPU]) == 0)
			break;
	if (i == *n) {
		memset(&g[i], 0, sizeof g[i]);
		snprintf(g[i].source, FIELD, "%s", r->f[C_SOURCE]);
		snprintf(g[i].gpu, FIELD, "%s", r->f[C_GPU]);
		snprintf(g[i].date, FIELD, "%s", r->f[C_DATE]);
		(*n)++;
	}
	stats_add(&g[i].st, err);
	/* a source's rows may carry several dates: keep the earliest */
	if (strcmp(r->f[C_DATE], g[i].date) < 0)
		snprintf(g[i].date, FIELD, "%s", r->f[C_DATE]);
}

static int src_cmp(const void *a, const void *b)
{
	const struct src_group *x = a, *y = b;
	int c = strcmp(x->date, y->date);

	return c ? c : strcmp(x->source, y->source);
}

static void sources_print(struct src_group *g, int n)
{
	double sum = 0, worst = 0;
	int w = 0;

	qsort(g, (size_t)n, sizeof g[0], src_cmp);
	printf("\nSOURCES: validation rows per published source and GPU, by date (error = "
	       "predicted/published throughput - 1)\n");
	printf("%-10s %-10s %3s %10s %10s %10s  %s\n", "date", "gpu", "n", "mean|err|",
	       "max|err|", "mean err", "source");
	for (int i = 0; i < n; i++) {
		double m = stats_mean_abs(&g[i].st);
		printf("%-10.10s %-10s %3d %9.2f%% %9.2f%% %+9.2f%%  %s\n", g[i].date, g[i].gpu,
		       g[i].st.n, m, g[i].st.max_abs, g[i].st.sum / g[i].st.n, g[i].source);
		sum += m;
		if (m >= worst) {
			worst = m;
			w = i;
		}
	}
	if (n > 0)
		printf("sources: %d, mean of their mean |error| %.2f%%, worst %.2f%% (%s, %s)\n",
		       n, sum / n, worst, g[w].source, g[w].gpu);
}

struct vresult {
	struct step_result r;
	double measured_s;
	double band;
	char stack[FIELD];
	int ran;
};

/*
 * Fixed-batch families: rows of one source, model and layout (all but the
 * data-parallel degree and the batch) whose microbatches per pipeline m
 * differ.  A least-squares line T = a m + b through the published times
 * and one through the predicted tell an error per microbatch (a) from one
 * per iteration (b); at a fixed batch, more GPUs mean fewer microbatches,
 * so an error in b is what drifts with scale.
 */
static void family_key(const struct vrow *r, char *key, size_t len)
{
	static const enum vcol cols[] = { C_SOURCE, C_LAYERS, C_HIDDEN, C_HEADS, C_VOCAB,
					  C_SEQ, C_GPU, C_TP, C_PP, C_CP, C_EP, C_VP, C_MBS,
					  C_RECOMPUTE, C_PRECISION, C_STACK };
	size_t used = 0;

	key[0] = '\0';
	for (size_t i = 0; i < sizeof cols / sizeof cols[0] && used < len; i++)
		used += (size_t)snprintf(key + used, len - used, "%s|", r->f[cols[i]]);
}

static double vrow_m(const struct vrow *r)
{
	return num(r, C_GBS) / (num(r, C_DP) * num(r, C_MBS));
}

/* Least squares y = a x + b over n points (x not all equal). */
static void fit_line(const double *x, const double *y, int n, double *a, double *b)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0;

	for (int i = 0; i < n; i++) {
		mx += x[i] / n;
		my += y[i] / n;
	}
	for (int i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
	}
	*a = sxy / sxx;
	*b = my - *a * mx;
}

static void scaling(const struct vrow *rows, const struct vresult *res, int n)
{
	static int done[VROWS_MAX];
	static char key[VROWS_MAX][4 * FIELD];

	printf("\nSCALING: fixed-batch families (one source, model and layout; rows differ in "
	       "microbatches per pipeline m), least squares T = a m + b\n");
	printf("%-44s %4s %11s %9s %8s %9s %8s %11s\n", "rows", "n", "m", "a_pub s", "b_pub s",
	       "a_pred s", "b_pred s", "db/(pv) ms");
	memset(done, 0, sizeof done);
	for (int i = 0; i < n; i++)
		family_key(&rows[i], key[i], sizeof key[i]);
	for (int i = 0; i < n; i++) {
		double m[VROWS_MAX], tp[VROWS_MAX], tq[VROWS_MAX], lo, hi, ap, bp, aq, bq;
		int k = 0, last = i;

		if (!res[i].ran || done[i])
			continue;
		for (int j = i; j < n; j++) {
			if (!res[j].ran || done[j] || strcmp(key[i], key[j]) != 0)
				continue;
			done[j] = 1;
			m[k] = vrow_m(&rows[j]);
			tp[k] = res[j].measured_s;
			tq[k++] = res[j].r.iteration_s;
			last = j;
		}
		lo = hi = m[0];
		for (int j = 1; j < k; j++) {
			lo = fmin(lo, m[j]);
			hi = fmax(hi, m[j]);
		}
		if (k < 2 || hi == lo)
			continue;
		fit_line(m, tp, k, &ap, &bp);
		fit_line(m, tq, k, &aq, &bq);
		char who[2 * FIELD + 4];
		snprintf(who, sizeof who, "%.*s .. %.*s", FIELD - 1, rows[i].f[C_ID], FIELD - 1,
			 rows[last].f[C_ID]);
		/* b's shortfall per pipeline position (stages x chunks): the
		 * one regularity the fixed part's gap has shown (see
		 * scenarios/validation/README) */
		double pv = num(&rows[i], C_PP) * fmax(1, num(&rows[i], C_VP));
		printf("%-44.44s %4d %5.0f-%-5.0f %9.4f %8.2f %9.4f %8.2f %11.1f\n", who, k, lo, hi,
		       ap, bp, aq, bq, 1e3 * (bp - bq) / pv);
	}
}

static int validation(const struct cfg_schema *schema, const char *dir, struct stats *st,
		      int *ran, int *runnable, int *pending)
{
	static struct vrow rows[VROWS_MAX];
	static struct vresult res[VROWS_MAX];
	struct group groups[VROWS_MAX];
	static struct src_group srcs[VROWS_MAX];
	int n = vrows_read(dir, rows, VROWS_MAX), n_groups = 0, n_srcs = 0, status = 0;

	if (n < 0)
		return 1;
	line_print_head();
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct err e = { 0 };
		struct line l;

		res[i].ran = 0;
		snprintf(path, sizeof path, "%s/%.*s.cfg", dir, FIELD - 1, rows[i].f[C_ID]);
		if (strcmp(rows[i].f[C_STATUS], "runnable") != 0) {
			(*pending)++;
			continue;
		}
		(*runnable)++;
		double measured = vrow_measured_s(&rows[i]);
		if (measured <= 0 ||
		    row_simulate(schema, path, &res[i].r, NULL, &res[i].band, res[i].stack,
				 &e) < 0) {
			fprintf(stderr, "%s: %s\n", path, measured <= 0 ? "unknown metric" : e.msg);
			status = 1;
			continue;
		}
		res[i].ran = 1;
		res[i].measured_s = measured;
		(*ran)++;
		vrow_line(&rows[i], &l);
		l.published = measured;
		l.predicted = res[i].r.iteration_s;
		l.err_pct = (measured / l.predicted - 1) * 100;
		line_print(&l, (int)num(&rows[i], C_GPUS));
		stats_add(st, l.err_pct);
		group_add(groups, &n_groups, l.gpu, res[i].stack, l.err_pct, res[i].band);
		src_add(srcs, &n_srcs, &rows[i], l.err_pct);
	}
	printf("mean |error| %.2f%%, max |error| %.2f%%, mean error %+.2f%% over %d rows "
	       "(reported, not a target)\n", stats_mean_abs(st), st->max_abs,
	       st->n ? st->sum / st->n : 0, st->n);

	printf("\nPending (settings trainsim lacks; scenario written, not run):\n");
	for (int i = 0; i < n; i++)
		if (strcmp(rows[i].f[C_STATUS], "runnable") != 0)
			printf("  %-24s %-10s %5s GPUs  %s (%s): %s\n", rows[i].f[C_ID], rows[i].f[C_GPU],
			       rows[i].f[C_GPUS], rows[i].f[C_SOURCE], rows[i].f[C_DATE],
			       rows[i].f[C_STATUS]);

	printf("\nVALIDATION breakdown, predicted seconds per iteration\n");
	printf("%-24s %9s %9s %9s %9s %9s %9s %9s\n", "row", "iter", "compute", "bubble",
	       "tp_exp", "pp_exp", "dp_exp", "optim");
	for (int i = 0; i < n; i++) {
		const struct step_result *r = &res[i].r;
		if (res[i].ran)
			printf("%-24s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", rows[i].f[C_ID],
			       r->iteration_s, r->compute_s, r->bubble_s, r->tp_exposed_s,
			       r->pp_exposed_s, r->dp_exposed_s, r->optimizer_s);
	}

	scaling(rows, res, n);

	printf("\nRESIDUALS per GPU and the stack each scenario runs (validation rows; error = "
	       "predicted/published throughput - 1)\n");
	printf("%-10s %-20s %3s %10s %10s %10s %7s %8s\n", "gpu", "stack", "n", "mean|err|",
	       "max|err|", "mean err", "band", "outside");
	int outside = 0, rows_n = 0;
	for (int i = 0; i < n_groups; i++) {
		printf("%-10s %-20s %3d %9.2f%% %9.2f%% %+9.2f%% %6.1f%% %8d\n", groups[i].gpu,
		       groups[i].stack, groups[i].st.n, stats_mean_abs(&groups[i].st),
		       groups[i].st.max_abs, groups[i].st.sum / groups[i].st.n,
		       groups[i].band_min * 100, groups[i].outside);
		outside += groups[i].outside;
		rows_n += groups[i].st.n;
	}
	/* the promise a band makes: a run like these rows lands inside it */
	printf("bands: %d of %d validation rows outside the band their run reports\n", outside,
	       rows_n);
	sources_print(srcs, n_srcs);
	return status;
}

int main(int argc, char **argv)
{
	const char *dir = "scenarios/validation";
	struct cfg_schema *schema = step_schema_new();
	struct stats t1 = { 0 }, val = { 0 };
	struct layer_summary layer = { 0 };
	struct memory_summary mem = { 0 };
	int status = 0, ran = 0, runnable = 0, pending = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-s") == 0 && i + 1 < argc && n_overrides < OVERRIDES_MAX)
			overrides[n_overrides++] = argv[++i];
		else if (argv[i][0] != '-')
			dir = argv[i];
		else {
			fprintf(stderr, "usage: validate-b [-s KEY=VALUE]... [DIR]\n");
			cfg_schema_free(schema);
			return 2;
		}
	}
	if (!schema)
		return 1;
	printf("CALIBRATION: data a constant was fitted or back-solved to (shows the fit, "
	       "not accuracy)\n");
	line_print_head();
	status |= table1(schema, dir, &t1);
	printf("%-24s mean |error| %.2f%%, max |error| %.2f%% (targets: mean <= 5%%, max <= 10%%)\n",
	       "  Table 1:", stats_mean_abs(&t1), t1.max_abs);
	for (size_t i = 0; i < sizeof busbw_meas / sizeof busbw_meas[0]; i++)
		status |= busbw_row(schema, dir, &busbw_meas[i]);
	status |= patterson_rows(dir);
	for (size_t i = 0; i < sizeof ci_platforms / sizeof ci_platforms[0]; i++)
		status |= host_slope_row(schema, dir, &ci_platforms[i]);

	printf("\nVALIDATION: independent published results, nothing fitted to them "
	       "(published = seconds per iteration implied by the source)\n");
	status |= validation(schema, dir, &val, &ran, &runnable, &pending);

	printf("\nLAYER: one MoE layer timed alone, against the framework's own "
	       "measurements of it (independent; ms)\n");
	status |= validate_layer(schema, dir, overrides, n_overrides, &layer);

	printf("\nMEMORY: the peak per GPU against PyTorch's measured allocations (independent; "
	       "GB, 10^9 bytes; error = ours / measured - 1; cov: ours with the reserve >= "
	       "the measured peak)\n");
	status |= validate_memory(schema, dir, &mem);

	printf("\nENERGY: whole-run energy against independent published figures, scenarios "
	       "at trainsim's defaults (kWh; 'same' = ours counted as the source counts, "
	       "'all' = our facility energy_kwh)\n");
	status |= energy(dir);

	printf("\ntable1: mean %.3f max %.3f\n", stats_mean_abs(&t1), t1.max_abs);
	printf("validation: ran %d of %d runnable rows, %d pending\n", ran, runnable, pending);
	printf("layer: %d rows, bf16 mean %.1f max %.1f, fp8 mean %.1f max %.1f\n", layer.rows,
	       layer.bf16_mean, layer.bf16_max, layer.fp8_mean, layer.fp8_max);
	printf("memory: %d rows, peak mean %.1f max %.1f, covered %d\n", mem.rows,
	       mem.peak_mean, mem.peak_max, mem.covered);
	cfg_schema_free(schema);
	if (stats_mean_abs(&t1) > 5.0 || t1.max_abs > 10.0)
		status = 1;
	return status;
}
