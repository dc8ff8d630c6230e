/* validate-layer.c -- see validate-layer.h.  Error is as in the other
 * tables: published time over predicted - 1, positive = trainsim too fast. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/bench/validate-layer.h"
#include "tests/bench/vtsv.h"
#include "tests/step-load.h"

#define LAYER_FIELDS 9
#define LAYER_OV_MAX 40

enum { L_ID, L_SOURCE, L_DATE, L_SCENARIO, L_DISPATCHER, L_PRECISION, L_FWD, L_BWD,
       L_STATUS };

struct layer_stats {
	int n;
	double sum_abs, max_abs;
};

static void layer_add(struct layer_stats *s, double err_pct)
{
	s->n++;
	s->sum_abs += fabs(err_pct);
	s->max_abs = fmax(s->max_abs, fabs(err_pct));
}

static double layer_mean(const struct layer_stats *s)
{
	return s->n ? s->sum_abs / s->n : 0;
}

/* The row's settings after the caller's: its dispatcher ("hybridep-
 * unfused": HybridEP without its permute fused), and FP8 with its recipe
 * where the precision names one ("fp8-blockwise"). */
static size_t row_overrides(char *const *f, const char *const *ov, size_t n_ov,
			    const char **out, char *disp, char *recipe, size_t len)
{
	bool unfused = strcmp(f[L_DISPATCHER], "hybridep-unfused") == 0;
	size_t n = 0;

	for (size_t i = 0; i < n_ov && n < LAYER_OV_MAX - 4; i++)
		out[n++] = ov[i];
	snprintf(disp, len, "parallel.ep_dispatcher=\"%s\"",
		 unfused ? "hybridep" : f[L_DISPATCHER]);
	out[n++] = disp;
	if (unfused)
		out[n++] = "parallel.ep_permute_fused=false";
	if (strncmp(f[L_PRECISION], "fp8-", 4) == 0) {
		out[n++] = "parallel.dtype=\"fp8\"";
		snprintf(recipe, len, "parallel.fp8_recipe=\"%s\"", f[L_PRECISION] + 4);
		out[n++] = recipe;
	}
	return n;
}

static int layer_row(const struct cfg_schema *schema, const char *dir, char *const *f,
		     const char *const *ov, size_t n_ov, struct layer_stats *st)
{
	char path[4096], disp[128], recipe[128];
	const char *all[LAYER_OV_MAX];
	size_t n = row_overrides(f, ov, n_ov, all, disp, recipe, sizeof disp);
	struct step_job j;
	struct err e = { 0 };
	double fwd_s, bwd_s;
	int rc;

	snprintf(path, sizeof path, "%s/%s", dir, f[L_SCENARIO]);
	rc = step_job_load(schema, path, all, n, &j, &e);
	if (rc == 0)
		rc = step_cfg_read_net(j.sc, &j.cfg, &e);
	if (rc == 0)
		rc = step_moe_layer(&j.cfg, &j.m, &j.L, &j.g, &fwd_s, &bwd_s, &e);
	step_job_free(&j);
	if (rc < 0) {
		fprintf(stderr, "%s: %s: %s\n", f[L_ID], path, e.msg);
		return 1;
	}
	double pf = atof(f[L_FWD]), pb = atof(f[L_BWD]);
	double ef = (pf / (fwd_s * 1e3) - 1) * 100, eb = (pb / (bwd_s * 1e3) - 1) * 100;
	printf("%-30s %-9s %-14s %8.3f %8.3f %+6.1f%% %8.3f %8.3f %+6.1f%%  %s (%s)\n",
	       f[L_ID], f[L_DISPATCHER], f[L_PRECISION], pf, fwd_s * 1e3, ef, pb, bwd_s * 1e3,
	       eb, f[L_SOURCE], f[L_DATE]);
	layer_add(st, ef);
	layer_add(st, eb);
	return 0;
}

int validate_layer(const struct cfg_schema *schema, const char *dir,
		   const char *const *ov, size_t n_ov, struct layer_summary *out)
{
	char path[4096], buf[4096];
	struct layer_stats bf16 = { 0 }, fp8 = { 0 };
	int status = 0, rows = 0;
	FILE *in;

	snprintf(path, sizeof path, "%s/moe-layer.tsv", dir);
	in = fopen(path, "r");
	if (!in) {
		perror(path);
		return 1;
	}
	printf("%-30s %-9s %-14s %8s %8s %7s %8s %8s %7s  %s\n", "row", "dispatch",
	       "precision", "fwd pub", "fwd ms", "error", "bwd pub", "bwd ms", "error",
	       "source");
	char *f[LAYER_FIELDS + 1];
	struct vtsv t = { in, path, LAYER_FIELDS, 0 };	/* columns in the enum's order */
	while (vtsv_runnable(&t, buf, sizeof buf, f, &status)) {
		rows++;
		status |= layer_row(schema, dir, f, ov, n_ov,
				    strncmp(f[L_PRECISION], "fp8", 3) == 0 ? &fp8 : &bf16);
	}
	fclose(in);
	printf("%-24s bf16 %d passes: mean |error| %.1f%%, max %.1f%%; fp8 %d passes: "
	       "mean |error| %.1f%%, max %.1f%%\n", "  one MoE layer:", bf16.n,
	       layer_mean(&bf16), bf16.max_abs, fp8.n, layer_mean(&fp8), fp8.max_abs);
	*out = (struct layer_summary){ rows, bf16.n, fp8.n, layer_mean(&bf16), bf16.max_abs,
				       layer_mean(&fp8), fp8.max_abs };
	return status;
}
