/*
 * plan.c -- the command `trainsim plan`: its options, the table of results
 * and the --tsv log of every configuration evaluated.  The planner itself
 * (setup, bounds, search) is models/plan*.c, its API models/plan.h.
 *
 * Options:
 *   --deadline-days D      required: the run must complete within D days
 *   --minimize cost|carbon|time   objective (default cost); carbon is
 *                          operational plus embodied
 *   --gpus N,N,...         cluster sizes to try (default: the scenario's
 *                          size x 1/4, 1/2, 3/4, 1, 3/2, 2, 3, 4 in whole nodes)
 *   --top N                configurations to list (default 10)
 *   --spot-fractions F,... also search the pricing mix: the share of nodes
 *                          in a spot pool (pools.sp, the rest in pools.od;
 *                          for a scenario without pools of its own)
 *   --tsv FILE             every configuration evaluated, as a table that
 *                          plots/plot-sweep --kind pareto draws
 *   --jobs N               step-model simulations side by side (default:
 *                          the online CPUs); the answer does not depend on it
 *   --json                 print the best one's summary as --json would
 *   --daly                 print Daly's interval for the scenario and exit
 *   -s KEY=VALUE           applied to every candidate (and printed with it)
 *
 * Exit 0 with a table; 3 when no configuration completes by the deadline,
 * with the reasons per cluster size on stderr; 2 and 1 as trainsim's.
 */
#include <float.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/forkjobs.h"
#include "models/plan.h"
#include "cli/args.h"
#include "cli/cmd.h"

#define PLAN_EXIT_NONE 3	/* the search found no configuration */

static const char *const goal_names[] = { "cost", "carbon", "time", NULL };

static const char plan_usage[] =
	"usage: trainsim plan [-s KEY=VALUE]... SCENARIO.cfg --deadline-days D\n"
	"                     [--minimize cost|carbon|time] [--gpus N,N,...] [--top N]\n"
	"                     [--spot-fractions F,F,...] [--tsv FILE] [--json] [--daly]\n"
	"                     [--jobs N]\n"
	"Search cluster size, TP, PP, microbatch, recomputation, ZeRO stage and\n"
	"checkpoint interval for the best run that completes by the deadline.\n"
	"  --deadline-days D        the run must finish within D days\n"
	"  --minimize GOAL          cost (default), carbon or time\n"
	"  --gpus N,N,...           cluster sizes to try (default: the scenario's\n"
	"                           x 1/4 .. 4 in whole nodes)\n"
	"  --spot-fractions F,...   also try these shares of the nodes on spot\n"
	"  --top N                  configurations to print (default 10)\n"
	"  --tsv FILE               every configuration evaluated, as a table\n"
	"  --json                   the best one's summary as JSON\n"
	"  --daly                   only Daly's interval, write time and MTBF\n"
	"  --jobs N                 helper processes (default: the CPUs, at most 16)\n"
	"  -s KEY=VALUE             override a scenario setting (repeatable)\n";

/* --- the results ---------------------------------------------------------- */

static void print_cand_line(const struct plan *p, int rank, const struct cand *c)
{
	printf("%4d %14.0f %9.2f %11.1f %6d %3d %3d %4d %3d %4s", rank, c->cost_usd,
	       c->duration_s / 86400.0, c->carbon_kg / 1000.0, c->gpus, c->tp, c->pp,
	       c->dp, c->mb, c->recompute ? "yes" : "no");
	if (p->has_zero)
		printf(" %4d", c->zero);
	if (p->n_spot)
		printf(" %4d", c->spot_nodes);
	printf(" %8.0f %7.1f\n", c->ckpt_s, c->mem_bound_bytes / 1073741824.0);
}

static void print_command(const struct plan *p, const struct cand *c)
{
	printf("     trainsim");
	for (size_t i = 0; i < p->n_base; i++)
		if (plan_ov_applies(p, c, p->base_ov[i]))
			printf(" -s %s", p->base_ov[i]);
	for (int i = 0; i < c->n_ov; i++)
		printf(" -s %s", c->ov[i]);
	printf(" %s\n", p->file);
}

/* --tsv: the configurations evaluated, as a table plots/plot-sweep reads
 * (the shape of trainsim collect's: run, overrides, figures). */
struct tsv {
	FILE *f;
	bool started;		/* header written */
};

static void tsv_row(void *ctx, const struct plan *p, const struct cand *c)
{
	struct tsv *t = ctx;

	if (!t->started) {
		fputs("run\tcluster.gpus\tparallel.tp\tparallel.pp\tparallel.micro_batch"
		      "\tparallel.recompute", t->f);
		if (p->has_zero)
			fputs("\tparallel.zero_stage", t->f);
		if (p->n_spot)
			fputs("\tpools.sp.nodes", t->f);
		fputs("\ttraining.checkpoint.interval_s\tcost_usd\tcarbon_kg"
		      "\tembodied_carbon_kg\tduration_s\tcompleted\n", t->f);
		t->started = true;
	}
	fprintf(t->f, "gpus%d,tp%d,pp%d,mb%d%s", c->gpus, c->tp, c->pp, c->mb,
		c->recompute ? ",rec" : "");
	if (p->has_zero)
		fprintf(t->f, ",z%d", c->zero);
	if (p->n_spot)
		fprintf(t->f, ",spot%d", c->spot_nodes);
	fprintf(t->f, "\t%d\t%d\t%d\t%d\t%s", c->gpus, c->tp, c->pp, c->mb,
		c->recompute ? "full" : "none");
	if (p->has_zero)
		fprintf(t->f, "\t%d", c->zero);
	if (p->n_spot)
		fprintf(t->f, "\t%d", c->spot_nodes);
	fprintf(t->f, "\t%.0f\t%.17g\t%.17g\t%.17g\t%.17g\t1\n", c->ckpt_s, c->cost_usd,
		c->op_carbon_kg, c->embodied_kg, c->duration_s);
}

/* The table: the ranked configurations, each with the command that
 * reproduces it. */
static void print_results(const struct plan *p, const struct cands *done, bool json)
{
	printf("# plan %s: deadline %.2f days, minimize %s; %zu layouts fit in memory, "
	       "%zu may meet the deadline, %ld runs simulated (%ld of them analytic bounds)\n",
	       p->file, p->deadline_s / 86400.0, goal_names[p->goal], p->n_layouts,
	       p->n_may_meet, p->runs, p->formula_runs);
	if (done->n == 0)
		return;
	printf("rank       cost_usd      days    carbon_t   gpus  tp  pp   dp  mb  rec%s%s"
	       "   ckpt_s mem_lb_GiB\n", p->has_zero ? " zero" : "",
	       p->n_spot ? " spot" : "");
	for (size_t i = 0; i < done->n && i < (size_t)p->top; i++) {
		print_cand_line(p, (int)i + 1, &done->v[i]);
		print_command(p, &done->v[i]);
	}
	if (json)
		fputs(done->v[0].json, stdout);
}

/* Nothing found: exit 3, and why, per cluster size, each reason with the
 * candidates it dropped (the run closest to the deadline, the scenario's
 * first refusal). */
static int no_answer(const struct plan *p, struct err *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	fprintf(m, "plan: no configuration of %s completes within %.4g days:", p->file,
		p->deadline_s / 86400.0);
	for (size_t i = 0; i < p->n_gpu_list; i++) {
		const struct plan_group *g = &p->why[i];

		fprintf(m, "\n  %d GPUs:", p->gpu_list[i]);
		if (g->n[REJ_MEMORY] + g->n[REJ_SCENARIO] +
		    g->n[REJ_BOUND_LATE] + g->n[REJ_BOUND_INCOMPLETE] + g->n[REJ_LATE] +
		    g->n[REJ_INCOMPLETE] == 0)
			fprintf(m, " no layout (tp x pp x dp with dp x micro_batch "
				"dividing the global batch);");
		for (int k = 0; k < REJ_COUNT; k++)
			if (g->n[k])
				fprintf(m, " %ld %s;", g->n[k], plan_reject_names[k]);
		if (isfinite(g->best_days))
			fprintf(m, " the shortest such run %.4g days;", g->best_days);
		if (g->msg[0])
			fprintf(m, " first refusal: %s", g->msg);
	}
	fclose(m);
	err_set(e, PLAN_EXIT_NONE, "%s", text);
	free(text);
	return -1;
}

/* The search, then its table. */
static int search(struct plan *p, bool json, struct err *e)
{
	struct cands done;
	int rc = 0;

	if (plan_search(p, &done, e) < 0)
		return -1;
	print_results(p, &done, json);
	if (done.n == 0)
		rc = no_answer(p, e);
	plan_cands_free(&done);
	return rc;
}

/* --- the command ---------------------------------------------------------- */

static int parse_gpus(struct plan *p, const char *text, struct err *e)
{
	size_t n = 1;
	const char *s = text;

	for (const char *q = text; *q; q++)
		n += *q == ',';
	if ((p->gpu_list = calloc(n, sizeof *p->gpu_list)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (p->n_gpu_list = 0; p->n_gpu_list < n; p->n_gpu_list++) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 1 || v > 10000000 || (*end && *end != ','))
			return err_set(e, ERR_USAGE, "plan: --gpus %s: expected "
				       "positive integers separated by commas", text);
		p->gpu_list[p->n_gpu_list] = (int)v;
		s = end + 1;
	}
	return 0;
}

/* --spot-fractions 0,0.5,1: shares of the nodes in a spot pool. */
static int parse_fractions(struct plan *p, const char *text, struct err *e)
{
	size_t n = 1;
	const char *s = text;

	for (const char *q = text; *q; q++)
		n += *q == ',';
	free(p->spot_fractions);
	if ((p->spot_fractions = calloc(n, sizeof *p->spot_fractions)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (p->n_spot = 0; p->n_spot < n; p->n_spot++) {
		char *end;
		double v = strtod(s, &end);

		if (end == s || !(v >= 0 && v <= 1) || (*end && *end != ','))
			return err_set(e, ERR_USAGE, "plan: --spot-fractions %s: expected "
				       "numbers from 0 to 1 separated by commas", text);
		p->spot_fractions[p->n_spot] = v;
		s = end + 1;
	}
	return 0;
}

static int print_daly(struct plan *p, struct err *e)
{
	struct cand c = { .gpus = p->gpus };
	double tau, write_s, mtbf_s;

	if (plan_daly_for(p, &c, &tau, &write_s, &mtbf_s, e) < 0)
		return -1;
	printf("daly_interval_s %.17g\ncheckpoint_write_s %.17g\nmtbf_s %.17g\n",
	       tau, write_s, mtbf_s);
	return 0;
}

int cmd_plan(int argc, char **argv, struct err *e)
{
	enum { OPT_DEADLINE = 256, OPT_MIN, OPT_GPUS, OPT_TOP, OPT_JSON, OPT_DALY,
	       OPT_SPOT, OPT_TSV, OPT_JOBS };
	static const struct option longs[] = {
		{ "deadline-days", required_argument, NULL, OPT_DEADLINE },
		{ "minimize", required_argument, NULL, OPT_MIN },
		{ "gpus", required_argument, NULL, OPT_GPUS },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "daly", no_argument, NULL, OPT_DALY },
		{ "spot-fractions", required_argument, NULL, OPT_SPOT },
		{ "tsv", required_argument, NULL, OPT_TSV },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct plan p = { .goal = GOAL_COST, .top = 10, .deadline_s = -1 };
	struct tsv log = { 0 };
	int cpus = fj_cpus();
	bool json = false, daly = false;
	const char *gpus = NULL, *tsv = NULL;
	int ch, rc = -1;
	char jobs_range[32];
	long v;

	p.base_ov = calloc((size_t)argc + 1, sizeof *p.base_ov);
	if (p.base_ov == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "s:h", longs, NULL)) != -1) {
		switch (ch) {
		case 's': p.base_ov[p.n_base++] = optarg; break;
		case OPT_DEADLINE:
			if (args_double("plan: --deadline-days", optarg, 0, DBL_MAX / 86400.0,
					"a positive number of days", &p.deadline_s, e) < 0)
				goto out;
			p.deadline_s *= 86400.0;
			break;
		case OPT_MIN: {
			int g;
			for (g = 0; goal_names[g] && strcmp(goal_names[g], optarg); g++)
				;
			if (goal_names[g] == NULL) {
				err_set(e, ERR_USAGE, "plan: --minimize %s: expected "
					"cost, carbon or time", optarg);
				goto out;
			}
			p.goal = (enum goal)g;
			break;
		}
		case OPT_GPUS: gpus = optarg; break;
		case OPT_TOP:
			if (args_long("plan: --top", optarg, 1, 1000, "1..1000", &v, e) < 0)
				goto out;
			p.top = (int)v;
			break;
		case OPT_JSON: json = true; break;
		case OPT_DALY: daly = true; break;
		case OPT_SPOT:
			if (parse_fractions(&p, optarg, e) < 0)
				goto out;
			break;
		case OPT_TSV: tsv = optarg; break;
		case OPT_JOBS:
			snprintf(jobs_range, sizeof jobs_range, "1..%d", PLAN_JOBS_MAX);
			if (args_long("plan: --jobs", optarg, 1, PLAN_JOBS_MAX, jobs_range,
				      &v, e) < 0)
				goto out;
			p.jobs = (int)v;
			break;
		case 'h': fputs(plan_usage, stdout); rc = 0; goto out;
		default:
			err_set(e, ERR_USAGE, "plan: bad option %s\n%s", argv[optind - 1],
				plan_usage);
			goto out;
		}
	}
	if (optind != argc - 1 || (!daly && p.deadline_s < 0)) {
		err_set(e, ERR_USAGE, "%s", plan_usage);
		goto out;
	}
	p.file = argv[optind];
	if (p.jobs == 0)
		p.jobs = cpus < PLAN_JOBS_MAX ? cpus : PLAN_JOBS_MAX;
	if (plan_init(&p, e) < 0)
		goto out;
	if (daly) {
		rc = print_daly(&p, e);
		goto out;
	}
	if ((gpus ? parse_gpus(&p, gpus, e) : plan_default_gpus(&p, e)) < 0)
		goto out;
	if (tsv && (log.f = fopen(tsv, "w")) == NULL) {
		err_set(e, ERR_USAGE, "plan: --tsv %s: cannot create: %s", tsv, strerror(errno));
		goto out;
	}
	if (log.f) {
		p.on_result = tsv_row;
		p.on_result_ctx = &log;
	}
	rc = search(&p, json, e);
	if (log.f && fclose(log.f) != 0 && rc == 0)
		rc = err_set(e, ERR_RUN, "plan: --tsv %s: cannot write", tsv);
	log.f = NULL;
out:
	if (log.f)
		fclose(log.f);
	plan_free(&p);
	free(p.base_ov);
	return rc;
}
