/*
 * disrupt-b.c -- the run model's speed with every disruption on
 * (issue 5's targets):
 *   1. scenarios/175b-spot.cfg (spot pool replaying a trace, elastic,
 *      async checkpoints) with node failures and automatic GC: one run,
 *      HDF5 output included, under 0.5 s;
 *   2. 100 replicas of it on 2 worker processes under 10 s;
 *   3. the event count with 1x and 4x the tokens: it grows with time
 *      (samples, checkpoints, preemptions), not with iterations.
 * Exits 1 if a target is missed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim/cfg.h"
#include "sim/report.h"
#include "models/replicas.h"
#include "models/run.h"
#include "bench.h"

static const char *ov[] = { "gc.mode=\"auto\"", "failures.enabled=true", "run.tokens=300e9" };

static struct scenario *load(struct cfg_schema *schema, const char *tokens, struct err *e)
{
	char path[4096];
	const char *dir = getenv("SRCDIR");

	ov[2] = tokens;
	snprintf(path, sizeof path, "%s/scenarios/175b-spot.cfg", dir ? dir : ".");
	return sc_load(schema, path, ov, 3, e);
}

int main(void)
{
	struct err e = { 0 };
	struct cfg_schema *schema = run_schema_new();
	struct scenario *sc = load(schema, "run.tokens=300e9", &e);
	struct report *rep = rep_new();
	struct run_opts o = { .seed = 1 };
	struct replicas *rs = NULL;
	char tmpl[] = "/tmp/disrupt-b.XXXXXX", path[64];
	double t0, one_s, reps_s, ev1, ev4, it1, it4;
	int fail = 0;

	if (sc == NULL || mkdtemp(tmpl) == NULL) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	snprintf(path, sizeof path, "%s/run.h5", tmpl);
	t0 = bench_now_s();
	if (rep_open(rep, path, &e) < 0 || run_simulate(sc, &o, rep, &e) < 0 ||
	    rep_commit(rep, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	one_s = bench_now_s() - t0;
	ev1 = rep_summary_get(rep, "events");
	it1 = rep_summary_get(rep, "iterations");
	printf("175b-spot + failures + auto GC: %.3f s (target < 0.5 s), %.0f events, "
	       "%.0f preemptions, %.0f failures, %.1f days\n", one_s, ev1,
	       rep_summary_get(rep, "preemptions"), rep_summary_get(rep, "failures"),
	       rep_summary_get(rep, "duration_days"));
	fail |= one_s >= 0.5;
	rep_free(rep);
	unlink(path);
	rmdir(tmpl);

	t0 = bench_now_s();
	struct run_job *job = run_job_from_scenario(sc, NULL, &e);
	if (job == NULL || replicas_run(job, 1, 100, 2, NULL, &rs, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	reps_s = bench_now_s() - t0;
	printf("100 replicas on 2 workers: %.2f s (target < 10 s)\n", reps_s);
	fail |= reps_s >= 10;
	replicas_free(rs);
	run_job_free(job);
	sc_free(sc);

	sc = load(schema, "run.tokens=1200e9", &e);
	rep = rep_new();
	if (sc == NULL || run_simulate(sc, &o, rep, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	ev4 = rep_summary_get(rep, "events");
	it4 = rep_summary_get(rep, "iterations");
	printf("4x tokens: %.0f -> %.0f iterations, %.0f -> %.0f events "
	       "(%.3f events per iteration at most)\n", it1, it4, ev1, ev4, ev4 / it4);
	rep_free(rep);
	sc_free(sc);
	cfg_schema_free(schema);
	return fail;
}
