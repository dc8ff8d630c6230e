/*
 * jobgen.c -- job classes, the generator, the inline list and the trace
 * (see jobgen.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/rng.h"
#include "models/jobgen.h"
#include "models/run.h"
#include "models/swf.h"

const struct cfg_setting jobgen_settings[] = {
	{ "workload.days", CFG_FLOAT, "days", 0, 3650, "30", NULL,
	  "the generator's horizon: classes submit jobs for this long" },
	{ "workload.trace", CFG_STRING, "", 0, 0, "", NULL,
	  "a job trace (SWF or CSV), relative to the scenario" },
	{ "workload.trace_format", CFG_ENUM, "", 0, 0, "auto", "auto|swf|csv",
	  "the trace's format (auto: by the file name's ending, .csv or else SWF)" },
	{ "workload.trace_checkpoint_s", CFG_FLOAT, "s", 0, 1e9, "0", NULL,
	  "checkpoint interval of traced jobs (0: an interrupted job restarts)" },
	{ "workload.trace_comm_fraction", CFG_FLOAT, "", 0, 1, "0", NULL,
	  "as classes.*.comm_fraction, for every traced job" },
	{ "classes.*.scenario", CFG_STRING, "", 0, 0, "", NULL,
	  "a run scenario: the class's jobs are that training run (else fixed)" },
	{ "classes.*.arrivals_per_hour", CFG_FLOAT, "1/h", 0, 1e6, "53.3", NULL,
	  "Poisson arrival rate (53.3: AcmeTrace's 470,497 GPU jobs on 2 clusters "
	  "over Mar-Aug 2023, Hu et al. NSDI'24, github.com/InternLM/AcmeTrace)" },
	{ "classes.*.gpus", CFG_INT_LIST, "GPUs", 1, 1e7, "[1]", NULL,
	  "job sizes to draw from (fixed jobs; [1] is an assumption)" },
	{ "classes.*.gpus_weights", CFG_FLOAT_LIST, "", 0, 1e12, "[1.0]", NULL,
	  "relative frequency of each size" },
	{ "classes.*.duration_median_s", CFG_FLOAT, "s", 1e-3, 1e9, "600", NULL,
	  "median run time of a fixed job, lognormal (an assumption, not fitted: "
	  "Hu et al. NSDI'24 find LLM-development jobs shorter than earlier DL "
	  "traces'; models/jobgen.h)" },
	{ "classes.*.duration_sigma", CFG_FLOAT, "", 0, 10, "1.5", NULL,
	  "sigma of the lognormal run time (an assumption, not fitted: Philly, "
	  "Jeon et al. ATC'19, and PAI, Weng et al. NSDI'22, span minutes to "
	  "days; models/jobgen.h)" },
	{ "classes.*.limit_factor", CFG_FLOAT, "", 1, 1e3, "1", NULL,
	  "the user's requested time / the true run time (EASY's estimate)" },
	{ "classes.*.checkpoint_s", CFG_FLOAT, "s", 0, 1e9, "0", NULL,
	  "wall time between checkpoints (0: a training job's run scenario's; "
	  "a fixed job restarts from scratch)" },
	{ "classes.*.comm_fraction", CFG_FLOAT, "", 0, 1, "0", NULL,
	  "share of a fixed job's undisturbed time its scale-out collectives "
	  "take, stretched when its ring shares links (models/cfabric.h; a "
	  "training job's comes from its step model; 0: no fabric traffic)" },
	{ "classes.*.team", CFG_STRING, "", 0, 0, "default", NULL, "team tag" },
	{ "classes.*.project", CFG_STRING, "", 0, 0, "default", NULL, "project tag" },
	{ "classes.*.priority", CFG_INT, "", -1e6, 1e6, "0", NULL,
	  "larger preempts smaller (sched.policy = priority)" },
	{ "classes.*.max_jobs", CFG_INT, "jobs", 0, 1e8, "0", NULL,
	  "stop after this many (0: the horizon decides)" },
	{ "jobs.*.submit_s", CFG_FLOAT, "s", 0, 1e10, "0", NULL, "submit time" },
	{ "jobs.*.gpus", CFG_INT, "GPUs", 1, 1e7, "8", NULL, "GPUs (fixed jobs)" },
	{ "jobs.*.duration_s", CFG_FLOAT, "s", 1e-3, 1e10, "3600", NULL,
	  "run time (fixed jobs)" },
	{ "jobs.*.limit_s", CFG_FLOAT, "s", 0, 1e10, "0", NULL,
	  "requested time (0: the run time)" },
	{ "jobs.*.scenario", CFG_STRING, "", 0, 0, "", NULL,
	  "a run scenario: the job is that training run" },
	{ "jobs.*.checkpoint_s", CFG_FLOAT, "s", 0, 1e9, "0", NULL,
	  "wall time between checkpoints (0: as classes.*.checkpoint_s)" },
	{ "jobs.*.comm_fraction", CFG_FLOAT, "", 0, 1, "0", NULL,
	  "as classes.*.comm_fraction (fixed jobs)" },
	{ "jobs.*.team", CFG_STRING, "", 0, 0, "default", NULL, "team tag" },
	{ "jobs.*.project", CFG_STRING, "", 0, 0, "default", NULL, "project tag" },
	{ "jobs.*.priority", CFG_INT, "", -1e6, 1e6, "0", NULL, "priority" },
	{ "teams.*.budget_usd", CFG_FLOAT, "USD", 0, 1e15, "0", NULL,
	  "alert when the team's cost crosses this (0: no budget)" },
	CFG_END
};

double jobgen_days_s(const struct scenario *sc)
{
	return sc_float(sc, "workload.days") * 86400.0;
}

/* A file the scenario names at key, found as sc_path finds it (the
 * scenario's directory, $TRAINSIM_PATH, the installed scenarios); NULL
 * with e filled when it is nowhere (or out of memory). */
static char *beside(const struct scenario *sc, const char *key, const char *rel,
		    struct err *e)
{
	char path[4096], *out;

	if (sc_path(sc, key, rel, path, sizeof path, e) < 0)
		return NULL;
	if ((out = strdup(path)) == NULL)
		err_set(e, ERR_RUN, "out of memory");
	return out;
}

/* A training job's shape: its GPUs, its time undisturbed by failures
 * (iterations plus the stalls of the checkpoints it writes on the way) and
 * the wall time between its checkpoints (0: none). */
struct shape {
	int gpus;
	double work_s, ckpt_s, comm_frac;
};

/* A training job takes its GPUs, work and (unless its own is set) the
 * checkpoint interval from its run scenario's shape. */
static void job_train(struct cjob *j, const struct shape *s)
{
	j->training = true;
	j->gpus = s->gpus;
	j->work_s = s->work_s;
	j->comm_frac = s->comm_frac;
	if (j->ckpt_s == 0)
		j->ckpt_s = s->ckpt_s;
}

static int training_shape(const struct scenario *sc, const char *key, const char *rel,
			  const char *gpu, struct shape *out, struct err *e)
{
	char *path = beside(sc, key, rel, e);
	struct cfg_schema *schema = path ? run_schema_new() : NULL;
	struct scenario *run = NULL;
	struct run_job *job = NULL;
	const char *run_gpu;
	int rc = -1;

	if (path == NULL)
		goto out;
	if (schema == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	FILE *probe = fopen(path, "r");	/* name the setting that points there */
	if (probe == NULL) {
		sc_error(sc, e, key, "%s: cannot read: %s", rel, strerror(errno));
		goto out;
	}
	fclose(probe);
	if ((run = sc_load(schema, path, NULL, 0, e)) == NULL ||
	    (job = run_job_from_scenario(run, NULL, e)) == NULL) {
		sc_where_named(sc_where_of(sc), e, key);
		goto out;
	}
	run_job_shape(job, &out->gpus, &run_gpu, &out->work_s);
	double iter_s, exposed_s, fabric_s = run_job_fabric_s(job, &iter_s, &exposed_s);
	double train_s = out->work_s;
	double every_s, stall_s;
	run_job_checkpoints(job, &every_s, &stall_s);
	out->ckpt_s = 0;
	if (every_s > 0) {
		/* One checkpoint each every_s of training, none after the last
		 * iteration (the run model's schedule). */
		double n = ceil(out->work_s / every_s) - 1;
		out->work_s += (n > 0 ? n : 0) * stall_s;
		out->ckpt_s = every_s + stall_s;
	}
	/* The iterations' scale-out communication time (at least what of it
	 * the step model found exposed, when it crosses nodes at all), over
	 * the whole work: checkpoint stalls use no fabric here
	 * (models/cfabric.h). */
	out->comm_frac = fabric_s > 0 && iter_s > 0 && out->work_s > 0 ?
			 fmin(1, fmax(fabric_s, exposed_s) / iter_s) * train_s / out->work_s :
			 0;
	if (strcmp(run_gpu, gpu) != 0) {
		rc = sc_error(sc, e, key, "%s runs on %s, the fleet has %s", rel, run_gpu, gpu);
		goto out;
	}
	rc = 0;
out:
	run_job_free(job);
	sc_free(run);
	cfg_schema_free(schema);
	free(path);
	return rc;
}

static int tags(const struct scenario *sc, const char *grp, const char *name,
		struct cjobs *js, struct cjob *j, struct err *e)
{
	if ((j->team = cjobs_team(js, sc_str(sc, "%s.%s.team", grp, name), e)) < 0 ||
	    (j->project = cjobs_project(js, sc_str(sc, "%s.%s.project", grp, name), e)) < 0)
		return -1;
	j->priority = (int)sc_int(sc, "%s.%s.priority", grp, name);
	j->comm_frac = sc_float(sc, "%s.%s.comm_fraction", grp, name);
	j->ckpt_s = sc_float(sc, "%s.%s.checkpoint_s", grp, name);
	return 0;
}

static int inline_jobs(const struct scenario *sc, const char *gpu, int gpn,
		       struct cjobs *js, struct err *e)
{
	const char *const *names;
	size_t n = sc_children(sc, "jobs", &names);
	int klass = n ? cjobs_class(js, "inline", e) : 0;

	if (klass < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *rel = sc_str(sc, "jobs.%s.scenario", names[i]);
		struct cjob *j = cjobs_add(js, e);
		if (j == NULL || tags(sc, "jobs", names[i], js, j, e) < 0)
			return -1;
		j->id = (int64_t)i + 1;
		j->klass = klass;
		j->submit_s = sc_float(sc, "jobs.%s.submit_s", names[i]);
		if (rel[0]) {
			struct shape s;
			if (training_shape(sc, "jobs.*.scenario", rel, gpu, &s, e) < 0)
				return -1;
			j = &js->v[js->n - 1];
			job_train(j, &s);
		} else {
			j->gpus = (int)sc_int(sc, "jobs.%s.gpus", names[i]);
			j->work_s = sc_float(sc, "jobs.%s.duration_s", names[i]);
		}
		j->limit_s = fmax(sc_float(sc, "jobs.%s.limit_s", names[i]), j->work_s);
		j->nodes = (j->gpus + gpn - 1) / gpn;
	}
	return 0;
}

/* One class's jobs over the horizon. */
static int class_jobs(const struct scenario *sc, const char *name, const char *gpu,
		      int gpn, uint64_t seed, struct cjobs *js, struct err *e)
{
	const char *rel = sc_str(sc, "classes.%s.scenario", name);
	size_t ns = sc_list_len(sc, "classes.%s.gpus", name);
	size_t nw = sc_list_len(sc, "classes.%s.gpus_weights", name);
	double rate_s = sc_float(sc, "classes.%s.arrivals_per_hour", name) / 3600.0;
	double horizon_s = jobgen_days_s(sc), wsum = 0, t = 0;
	double med = sc_float(sc, "classes.%s.duration_median_s", name);
	double sigma = sc_float(sc, "classes.%s.duration_sigma", name);
	double factor = sc_float(sc, "classes.%s.limit_factor", name);
	int64_t max_jobs = sc_int(sc, "classes.%s.max_jobs", name), made = 0;
	int klass = cjobs_class(js, name, e);
	struct shape shape = { 0, 0, 0, 0 };
	char stream[160];

	if (klass < 0)
		return -1;
	if (ns == 0)
		ns = 1;			/* the default [1] */
	if (nw != 0 && nw != ns)
		return sc_error(sc, e, "classes.*.gpus_weights", "class %s: %zu weights for "
				"%zu sizes", name, nw, ns);
	for (size_t i = 0; i < nw; i++)
		wsum += sc_list_float(sc, i, "classes.%s.gpus_weights", name);
	if (nw && wsum <= 0)
		return sc_error(sc, e, "classes.*.gpus_weights", "class %s: weights sum to 0",
				name);
	if (rel[0] && training_shape(sc, "classes.*.scenario", rel, gpu, &shape, e) < 0)
		return -1;
	if (rate_s <= 0)
		return 0;
	snprintf(stream, sizeof stream, "jobgen.%s", name);
	gsl_rng *r = rng_stream(seed, stream);
	if (r == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	int rc = 0;
	for (;;) {
		t += gsl_ran_exponential(r, 1.0 / rate_s);	/* takes the mean */
		if (t >= horizon_s || (max_jobs && made >= max_jobs))
			break;
		struct cjob *j = cjobs_add(js, e);
		if (j == NULL || (rc = tags(sc, "classes", name, js, j, e)) < 0) {
			rc = -1;
			break;
		}
		j->id = (int64_t)js->n;
		j->klass = klass;
		j->submit_s = t;
		if (rel[0]) {
			job_train(j, &shape);
		} else {
			double u = gsl_rng_uniform(r) * wsum, acc = 0;
			size_t k = 0;
			for (; nw && k + 1 < nw; k++)
				if ((acc += sc_list_float(sc, k, "classes.%s.gpus_weights",
							  name)) > u)
					break;
			j->gpus = sc_list_len(sc, "classes.%s.gpus", name) ?
				  (int)sc_list_float(sc, k, "classes.%s.gpus", name) : 1;
			j->work_s = gsl_ran_lognormal(r, log(med), sigma);
		}
		j->limit_s = j->work_s * factor;
		j->nodes = (j->gpus + gpn - 1) / gpn;
		made++;
	}
	gsl_rng_free(r);
	return rc;
}

static int trace_jobs(const struct scenario *sc, int gpn, struct cjobs *js, struct err *e)
{
	const char *rel = sc_str(sc, "workload.trace");
	const char *fmt = sc_str(sc, "workload.trace_format");
	size_t len = strlen(rel), first = js->n;
	int klass;
	long rc;

	if (!rel[0])
		return 0;
	char *path = beside(sc, "workload.trace", rel, e);
	if (path == NULL)
		return -1;
	if ((klass = cjobs_class(js, "trace", e)) < 0) {
		free(path);
		return err_set(e, ERR_RUN, "out of memory");
	}
	bool csv = strcmp(fmt, "csv") == 0 ||
		   (strcmp(fmt, "auto") == 0 && len > 4 && strcmp(rel + len - 4, ".csv") == 0);
	rc = csv ? swf_read_csv(path, gpn, klass, js, e) : swf_read(path, gpn, klass, js, e);
	free(path);
	if (rc < 0)
		return sc_where_named(sc_where_of(sc), e, "workload.trace");
	for (size_t i = first; i < js->n; i++) {
		js->v[i].ckpt_s = sc_float(sc, "workload.trace_checkpoint_s");
		js->v[i].comm_frac = sc_float(sc, "workload.trace_comm_fraction");
	}
	return rc < 0 ? -1 : 0;
}

int jobgen_from_scenario(const struct scenario *sc, const char *gpu, int gpus_per_node,
			 uint64_t seed, struct cjobs *js, struct err *e)
{
	const char *const *names;
	size_t n = sc_children(sc, "classes", &names);

	if (trace_jobs(sc, gpus_per_node, js, e) < 0 ||
	    inline_jobs(sc, gpu, gpus_per_node, js, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (class_jobs(sc, names[i], gpu, gpus_per_node, seed, js, e) < 0)
			return -1;
	cjobs_sort(js);
	return 0;
}
