/*
 * step-table1.c -- `make validate` (tests/bench/step-table1-b): Megatron-LM
 * Table 1 (Narayanan et al., SC'21) against the step model.  Reads
 * DIR/megatron-table1.tsv (published figures) and DIR/megatron-table1-N.cfg
 * (N = 1..10, one row each), runs one simulated iteration per row and
 * prints published and predicted TFLOP/s per GPU with the error, then the
 * mean and max absolute error.  Exit 1
 * when the targets (mean <= 5%, every row within 10%) are missed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/step-load.h"

#define ROWS 10

static int read_published(const char *dir, double *tflops, double *params_b)
{
	char path[4096], line[1024];
	int n = 0;

	snprintf(path, sizeof path, "%s/megatron-table1.tsv", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof line, f) && n < ROWS) {
		double v[12];
		if (line[0] == '#' || sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
					     &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
					     &v[6], &v[7], &v[8], &v[9]) != 10)
			continue;
		params_b[n] = v[0];
		tflops[n++] = v[9];
	}
	fclose(f);
	return n == ROWS ? 0 : -1;
}

static int run_row(const struct cfg_schema *schema, const char *dir, int row,
		   struct step_result *r, struct err *e)
{
	char path[4096];
	struct step_job j;

	snprintf(path, sizeof path, "%s/megatron-table1-%d.cfg", dir, row);
	int rc = step_job_run(schema, path, NULL, 0, &j, e);
	*r = j.r;
	step_job_free(&j);
	return rc;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "scenarios/validation";
	double pub[ROWS], params_b[ROWS], sum = 0, worst = 0;
	struct cfg_schema *schema = step_schema_new();
	int status = 0;

	if (!schema || read_published(dir, pub, params_b) < 0) {
		fprintf(stderr, "step-validate: cannot read %s/megatron-table1.tsv\n", dir);
		cfg_schema_free(schema);
		return 1;
	}
	printf("Megatron-LM Table 1 (Narayanan et al. SC'21), TFLOP/s per GPU\n");
	printf("%3s %8s %9s %9s %7s %9s %8s %8s %8s %8s\n", "row", "params", "published",
	       "predicted", "error", "iter_s", "bubble", "tp_exp", "dp_exp", "pp_exp");
	for (int i = 0; i < ROWS; i++) {
		struct step_result r;
		struct err e = { 0 };
		if (run_row(schema, dir, i + 1, &r, &e) < 0) {
			fprintf(stderr, "row %d: %s\n", i + 1, e.msg);
			status = 1;
			continue;
		}
		double err = (r.tflops_per_gpu - pub[i]) / pub[i] * 100;
		sum += fabs(err);
		if (fabs(err) > worst)
			worst = fabs(err);
		printf("%3d %7.1fB %9.1f %9.1f %+6.1f%% %9.3f %8.3f %8.3f %8.3f %8.3f\n",
		       i + 1, params_b[i], pub[i], r.tflops_per_gpu, err, r.iteration_s,
		       r.bubble_s, r.tp_exposed_s, r.dp_exposed_s, r.pp_exposed_s);
	}
	printf("mean |error| %.2f%%, max |error| %.2f%% (targets: mean <= 5%%, max <= 10%%)\n",
	       sum / ROWS, worst);
	cfg_schema_free(schema);
	if (status == 0 && (sum / ROWS > 5.0 || worst > 10.0))
		status = 1;
	return status;
}
