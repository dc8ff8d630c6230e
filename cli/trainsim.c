/*
 * trainsim.c -- the command line.
 *
 *   trainsim [options] SCENARIO.cfg        simulate a whole run into an .h5
 *   trainsim SUBCOMMAND ...                 see --help
 *
 * main() is the only place that prints an error and exits: 0 on success,
 * 2 on a usage or scenario error, 1 on anything else.  The output file is
 * written under a temporary name and renamed on success, so a failed run
 * leaves nothing behind.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "sim/h5out.h"
#include "sim/outpath.h"
#include "sim/report.h"
#include "models/pace.h"
#include "models/replicas.h"
#include "models/run.h"
#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/human.h"
#include "cli/progress.h"

struct cli {
	const char *scenario;
	const char *out_path;
	const char **overrides;		/* -s KEY=VALUE, then --seed as run.seed=N */
	size_t n_overrides;
	char seed_override[64];
	bool json, quiet, verbose, check, schema, schema_tsv;
	int replicas;			/* --replicas N; 0 = one run */
};

static const char usage_text[] =
	"usage: trainsim [options] SCENARIO.cfg\n"
	"\n"
	"Simulate a whole LLM training run and write its time series to HDF5.\n"
	"\n"
	"  -o FILE.h5        output file (default: SCENARIO's base name + .h5 here)\n"
	"  -s KEY=VALUE      override a setting by its path (repeatable)\n"
	"      --seed N      seed of every random stream (same as -s run.seed=N)\n"
	"      --replicas N  run N seeds (seed, seed+1, ...) in parallel; add KEY_mean\n"
	"                    and KEY_ci95 (95% t interval) per summary figure; the\n"
	"                    summary shows mean ± interval\n"
	"  -v                with --replicas, also the first seed's own values\n"
	"      --json        print the summary as one JSON object on stdout\n"
	"  -q                no human summary, no progress line\n"
	"      --check       validate, print the resolved scenario and derived figures\n"
	"      --schema      list every setting: path, type, unit, range, default, help\n"
	"      --schema=tsv  the same as tab-separated columns, for programs\n"
	"  -h, --help        this text\n"
	"  -V, --version     version\n"
	"\n"
	"Subcommands (trainsim NAME --help):\n"
	"  collective SCENARIO.cfg  one collective, as nccl-tests prints it\n"
	"  collect RUN.h5...        one row per run (TSV; -o for an HDF5 table)\n"
	"  export RUN.h5            a run's series, events, summary, step as columns\n"
	"  plan SCENARIO.cfg --deadline-days D\n"
	"                           search for the best configuration\n"
	"  cluster FILE.cfg         many jobs on one shared fleet (scheduler, pools)\n"
	"  list gpus|links|nodes|storage|instances|regions|models\n"
	"                           catalog entries: key figures and sources\n"
	"\n"
	"Exit status: 0 success, 2 usage or scenario error, 1 other failure.\n";

static int parse_seed(const char *text, struct cli *c, struct err *e)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-')
		return err_set(e, ERR_USAGE, "--seed %s: expected a non-negative integer", text);
	snprintf(c->seed_override, sizeof c->seed_override, "run.seed=%llu", v);
	return 0;
}

static int parse_replicas(const char *text, struct cli *c, struct err *e)
{
	long v;

	if (args_long("--replicas", text, 1, 100000, "an integer from 1 to 100000",
		      &v, e) < 0)
		return -1;
	c->replicas = (int)v;
	return 0;
}

/* Returns 1 when the command is already done (--help, --version). */
static int parse_args(int argc, char **argv, struct cli *c, struct err *e)
{
	enum { OPT_SEED = 256, OPT_JSON, OPT_CHECK, OPT_SCHEMA, OPT_REPLICAS };
	static const struct option longs[] = {
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "schema", optional_argument, NULL, OPT_SCHEMA },
		{ "replicas", required_argument, NULL, OPT_REPLICAS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	c->overrides = calloc((size_t)argc + 1, sizeof *c->overrides);
	if (c->overrides == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:s:qvhV", longs, NULL)) != -1) {
		switch (ch) {
		case 'o': c->out_path = optarg; break;
		case 's': c->overrides[c->n_overrides++] = optarg; break;
		case 'q': c->quiet = true; break;
		case 'v': c->verbose = true; break;
		case OPT_SEED:
			if (parse_seed(optarg, c, e) < 0)
				return -1;
			break;
		case OPT_JSON: c->json = true; break;
		case OPT_CHECK: c->check = true; break;
		case OPT_SCHEMA:
			if (optarg != NULL && strcmp(optarg, "tsv") != 0)
				return err_set(e, ERR_USAGE, "trainsim: --schema=%s: expected "
					       "--schema or --schema=tsv", optarg);
			c->schema = true;
			c->schema_tsv = optarg != NULL;
			break;
		case OPT_REPLICAS:
			if (parse_replicas(optarg, c, e) < 0)
				return -1;
			break;
		case 'h': fputs(usage_text, stdout); return 1;
		case 'V': printf("trainsim %s\n", PACKAGE_VERSION); return 1;
		case ':':
			return err_set(e, ERR_USAGE, "trainsim: option %s needs a value "
				       "(see trainsim --help)", argv[optind - 1]);
		default:
			return err_set(e, ERR_USAGE, "trainsim: unknown option %s "
				       "(see trainsim --help)", argv[optind - 1]);
		}
	}
	if (c->seed_override[0])
		c->overrides[c->n_overrides++] = c->seed_override;
	if (c->schema)
		return 0;
	if (optind != argc - 1)
		return err_set(e, ERR_USAGE, "trainsim: expected one scenario file "
			       "(see trainsim --help)");
	c->scenario = argv[optind];
	return 0;
}

/* The -s overrides (and --seed) as given, one KEY=VALUE per line: what
 * defines this run within a sweep (trainsim collect reads it back). */
int cli_write_overrides(struct report *rep, const char *const *ov, size_t n,
			struct err *e)
{
	size_t len = 1;
	char *s, *p;
	int rc;

	for (size_t i = 0; i < n; i++)
		len += strlen(ov[i]) + 1;
	if ((s = p = malloc(len)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	*p = '\0';
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s\n", ov[i]);
	rc = rep_attr_str(rep, "overrides", s, e);
	free(s);
	return rc;
}

static int write_root_attrs(struct report *rep, const struct cli *c,
			    const struct scenario *sc, struct err *e)
{
	int rc = cli_write_overrides(rep, c->overrides, c->n_overrides, e);
	const char *text = rc < 0 ? NULL : sc_text(sc, e);
	if (rc < 0 || text == NULL ||
	    rep_attr_str(rep, "trainsim_version", PACKAGE_VERSION, e) < 0 ||
	    rep_attr_str(rep, "scenario", text, e) < 0 ||
	    rep_attr_str(rep, "scenario_file", sc_file(sc), e) < 0 ||
	    rep_attr_str(rep, "model", sc_str(sc, "model.name"), e) < 0 ||
	    rep_attr_str(rep, "gpu", sc_str(sc, "cluster.gpu"), e) < 0 ||
	    rep_attr_str(rep, "region", sc_str(sc, "region"), e) < 0)
		return -1;
	return rep_attr_u64(rep, "seed", (uint64_t)sc_int(sc, "run.seed"), e);
}

/* What the run says besides its numbers goes to stderr, -q or not; why
 * a run did not complete is kept for the human summary's last line. */
struct run_note {
	char why[400];
};

static void warn_stderr(void *ctx, const char *text)
{
	struct run_note *n = ctx;

	fprintf(stderr, "trainsim: warning: %s\n", text);
	if (strncmp(text, "did not complete", 16) == 0)
		snprintf(n->why, sizeof n->why, "%s", text);
}

static int cmd_run(const struct cli *c, const struct scenario *sc, struct err *e)
{
	struct report *rep = rep_new();
	struct progress prog;
	struct run_opts opts = { 0 };
	struct run_note note = { "" };
	struct replicas *reps = NULL;
	struct pace_cache *paces = NULL;
	struct run_job *job = NULL;	/* the settings, read once */
	char *out_path = NULL;
	int rc = -1;

	if (rep == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	out_path = c->out_path ? NULL : args_out_path(c->scenario);
	if (!c->out_path && out_path == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	/* Where the output goes is checked first: a bad -o fails at once. */
	if (outp_check_scenario(c->out_path ? c->out_path : out_path, sc, e) < 0)
		goto out;
	/* Validate everything the models check before creating any file
	 * (the iteration simulated on the way is kept for the run). */
	if ((paces = pace_cache_new()) == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	if ((job = run_job_from_scenario(sc, paces, e)) == NULL ||
	    run_job_check(job, NULL, e) < 0)
		goto out;
	/* Replicas run in forked workers before any file is open. */
	progress_init(&prog, c->quiet);
	rc = c->replicas > 1 ? replicas_run_with(job, (uint64_t)sc_int(sc, "run.seed"),
						  c->replicas, 0, paces, progress_replicas,
						  &prog, &reps, e) : 0;
	progress_end(&prog);
	if (rc < 0)
		goto out;
	rc = -1;
	if (rep_open(rep, c->out_path ? c->out_path : out_path, e) < 0 ||
	    write_root_attrs(rep, c, sc, e) < 0)
		goto out;
	progress_init(&prog, c->quiet);
	opts.seed = (uint64_t)sc_int(sc, "run.seed");
	opts.pace_cache = paces;
	opts.progress = progress_update;
	opts.progress_ctx = &prog;
	opts.warn = warn_stderr;
	opts.warn_ctx = &note;
	rc = run_simulate_job(job, &opts, rep, e);
	progress_end(&prog);
	if (rc == 0 && reps)
		replicas_add(reps, rep);
	if (rc < 0 || (rc = rep_commit(rep, e)) < 0)
		goto out;
	if (c->json)
		rep_print_json(rep, stdout);
	else if (!c->quiet) {
		human_print(rep, c->verbose, stdout);
		if (note.why[0])
			printf("\nthe run %s\n", note.why);
	}
out:
	replicas_free(reps);
	run_job_free(job);
	pace_cache_free(paces);
	rep_free(rep);
	free(out_path);
	return rc;
}

static int cmd_check(const struct scenario *sc, struct err *e)
{
	const char *text = sc_text(sc, e);

	if (text == NULL)
		return -1;
	fputs(text, stdout);
	return run_check(sc, NULL, stdout, e);
}

static int trainsim(int argc, char **argv, struct err *e)
{
	struct cli c = { 0 };
	struct cfg_schema *schema = NULL;
	struct scenario *sc = NULL;
	int rc;

	rc = parse_args(argc, argv, &c, e);
	if (rc != 0)
		goto out;
	rc = -1;
	if ((schema = args_run_schema(e)) == NULL)
		goto out;
	if (c.schema) {
		(c.schema_tsv ? cfg_schema_print_tsv : cfg_schema_print)(schema, stdout);
		rc = 0;
		goto out;
	}
	sc = sc_load(schema, c.scenario, c.overrides, c.n_overrides, e);
	if (sc == NULL)
		goto out;
	rc = c.check ? cmd_check(sc, e) : cmd_run(&c, sc, e);
out:
	sc_free(sc);
	cfg_schema_free(schema);
	free(c.overrides);
	return rc < 0 ? -1 : 0;
}

/* Subcommands: `trainsim NAME ...`; each lives with the concern it serves. */
static const struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv, struct err *e);
} subcommands[] = {
	{ "collective", cmd_collective },
	{ "collect", cmd_collect },
	{ "export", cmd_export },
	{ "plan", cmd_plan },
	{ "cluster", cmd_cluster },
	{ "list", cmd_list },
	{ NULL, NULL },
};

static int dispatch(int argc, char **argv, struct err *e)
{
	if (argc > 1)
		for (const struct subcommand *c = subcommands; c->name; c++)
			if (strcmp(argv[1], c->name) == 0)
				return c->fn(argc - 1, argv + 1, e) < 0 ? -1 : 0;
	return trainsim(argc, argv, e);
}

/* SIGINT/SIGTERM: the temporary output goes, the status says which
 * signal (128 + N, as a shell reports it), and no file ever appears
 * under the final name. */
static void on_signal(int sig)
{
	h5o_unlink_temps();
	_exit(128 + sig);
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
	struct err e = { 0 };

	catch_signals();
	if (dispatch(argc, argv, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return e.status ? e.status : ERR_RUN;
	}
	return 0;
}
