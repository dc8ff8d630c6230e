/* validate-memory.c -- see validate-memory.h.  Error is ours over the
 * measured - 1: negative, trainsim counts less than PyTorch allocated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/memory.h"
#include "tests/bench/validate-memory.h"
#include "tests/bench/vtsv.h"
#include "tests/step-load.h"

#define MEM_FIELDS 8
#define GB 1e9

enum { M_ID, M_SOURCE, M_DATE, M_SCENARIO, M_GPU, M_ALLOCATED, M_MAX_ALLOCATED,
       M_STATUS };

static int memory_row(const struct cfg_schema *schema, const char *dir, char *const *f,
		      double *peak_err, int *covered)
{
	char path[4096], gpu[128];
	const char *ov[1] = { gpu };
	struct step_job j;
	struct mem_breakdown b;
	struct err e = { 0 };

	snprintf(path, sizeof path, "%s/%s", dir, f[M_SCENARIO]);
	snprintf(gpu, sizeof gpu, "cluster.gpu=\"%s\"", f[M_GPU]);
	if (step_job_load(schema, path, ov, 1, &j, &e) < 0) {
		fprintf(stderr, "%s: %s: %s\n", f[M_ID], path, e.msg);
		step_job_free(&j);
		return 1;
	}
	/* the logging rank: Megatron's tensorboard writer is the last rank's */
	mem_stage(&j.m, &j.L, &j.cfg.par, j.L.pp - 1, &b);
	char layout[64];
	snprintf(layout, sizeof layout, "TP%d PP%d DP%d mb%d", j.L.tp, j.L.pp, j.L.dp,
		 j.L.micro_batch);
	step_job_free(&j);

	double states_pub = atof(f[M_ALLOCATED]), peak_pub = atof(f[M_MAX_ALLOCATED]);
	double states = b.weights_bytes + b.grads_bytes + b.optimizer_bytes;
	double peak = b.total_bytes - b.reserve_bytes;
	double es = (states / states_pub - 1) * 100, ep = (peak / peak_pub - 1) * 100;

	*covered = b.total_bytes >= peak_pub;
	*peak_err = ep;
	printf("%-26s %-9s %-22s %8.2f %8.2f %+6.1f%% %8.2f %8.2f %+6.1f%% %8.2f %-3s  %s (%s)\n",
	       f[M_ID], f[M_GPU], layout, states_pub / GB, states / GB, es, peak_pub / GB,
	       peak / GB, ep, b.total_bytes / GB, *covered ? "yes" : "no", f[M_SOURCE],
	       f[M_DATE]);
	return 0;
}

int validate_memory(const struct cfg_schema *schema, const char *dir,
		    struct memory_summary *out)
{
	char path[4096], buf[4096];
	int status = 0;
	double sum_abs = 0;
	FILE *in;

	memset(out, 0, sizeof *out);
	snprintf(path, sizeof path, "%s/memory.tsv", dir);
	in = fopen(path, "r");
	if (!in) {
		perror(path);
		return 1;
	}
	printf("%-26s %-9s %-22s %8s %8s %7s %8s %8s %7s %8s %-3s  %s\n", "row", "gpu",
	       "layout", "states", "ours", "error", "peak", "ours", "error", "+reserve",
	       "cov", "source");
	char *f[MEM_FIELDS + 1];
	int covered;
	double err;
	struct vtsv t = { in, path, MEM_FIELDS, 0 };	/* columns in the enum's order */
	while (vtsv_runnable(&t, buf, sizeof buf, f, &status)) {
		if (memory_row(schema, dir, f, &err, &covered) != 0) {
			status = 1;
			continue;
		}
		out->rows++;
		out->covered += covered;
		sum_abs += fabs(err);
		out->peak_max = fmax(out->peak_max, fabs(err));
	}
	fclose(in);
	out->peak_mean = out->rows ? sum_abs / out->rows : 0;
	printf("%-24s %d rows: peak mean |error| %.1f%%, max %.1f%%; the peak with the "
	       "reserve covers the measured one in %d of %d\n", "  peak per GPU:", out->rows,
	       out->peak_mean, out->peak_max, out->covered, out->rows);
	return status;
}
