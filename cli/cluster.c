/*
 * cluster.c -- the command `trainsim cluster FILE.cfg`: many jobs on one
 * shared fleet (models/cluster.h), written to FILE's base name + .h5.
 *
 *   trainsim cluster [-o OUT.h5] [-s KEY=VALUE]... [--seed N] [--json] [-q]
 *                    [--check] [--schema] FILE.cfg
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg.h"
#include "sim/outpath.h"
#include "sim/report.h"
#include "models/cluster.h"
#include "cli/cmd.h"
#include "cli/human.h"

static const char cluster_usage[] =
	"usage: trainsim cluster [-o OUT.h5] [-s KEY=VALUE]... [--seed N] [--json] [-q]\n"
	"                        [--check] [--schema] FILE.cfg\n"
	"Simulate many jobs on one shared fleet: scheduler, autoscaled pools,\n"
	"per-team costs.  Writes /summary, /timeseries, /events and /jobs.\n";

struct cl_args {
	const char **ov;
	size_t n_ov;
	char seed[64];
	const char *out, *file;
	bool json, quiet, check, schema;
};

static int cl_parse(int argc, char **argv, struct cl_args *a, struct err *e)
{
	enum { O_SEED = 256, O_JSON, O_CHECK, O_SCHEMA };
	static const struct option longs[] = {
		{ "seed", required_argument, NULL, O_SEED },
		{ "json", no_argument, NULL, O_JSON },
		{ "check", no_argument, NULL, O_CHECK },
		{ "schema", no_argument, NULL, O_SCHEMA },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	if ((a->ov = calloc((size_t)argc + 1, sizeof *a->ov)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:s:qh", longs, NULL)) != -1) {
		switch (ch) {
		case 'o': a->out = optarg; break;
		case 's': a->ov[a->n_ov++] = optarg; break;
		case 'q': a->quiet = true; break;
		case O_SEED:
			if (strspn(optarg, "0123456789") != strlen(optarg) || !optarg[0])
				return err_set(e, ERR_USAGE, "--seed %s: expected a "
					       "non-negative integer", optarg);
			snprintf(a->seed, sizeof a->seed, "cluster_run.seed=%s", optarg);
			break;
		case O_JSON: a->json = true; break;
		case O_CHECK: a->check = true; break;
		case O_SCHEMA: a->schema = true; break;
		case 'h': fputs(cluster_usage, stdout); return 1;
		default:
			return err_set(e, ERR_USAGE, "trainsim cluster: bad option %s\n%s",
				       argv[optind - 1], cluster_usage);
		}
	}
	if (a->seed[0])
		a->ov[a->n_ov++] = a->seed;
	if (!a->schema && optind != argc - 1)
		return err_set(e, ERR_USAGE, "trainsim cluster: expected one scenario "
			       "file\n%s", cluster_usage);
	a->file = a->schema ? NULL : argv[optind];
	return 0;
}

static char *cl_out_path(const char *file)
{
	const char *base = strrchr(file, '/');
	size_t n;
	char *out;

	base = base ? base + 1 : file;
	n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".cfg") == 0)
		n -= 4;
	if ((out = malloc(n + 4)) != NULL) {
		memcpy(out, base, n);
		memcpy(out + n, ".h5", 4);
	}
	return out;
}

static int cl_run(const struct cl_args *a, const struct scenario *sc, struct err *e)
{
	struct report *rep = rep_new();
	char *path = a->out ? NULL : cl_out_path(a->file);
	const char *text;
	int rc = -1;

	if (rep == NULL || (!a->out && path == NULL)) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	if (outp_check_scenario(a->out ? a->out : path, sc, e) < 0 ||
	    (text = sc_text(sc, e)) == NULL ||
	    rep_open(rep, a->out ? a->out : path, e) < 0 || cli_write_overrides(rep, a->ov, a->n_ov, e) < 0 ||
	    rep_attr_str(rep, "trainsim_version", PACKAGE_VERSION, e) < 0 ||
	    rep_attr_str(rep, "scenario", text, e) < 0 ||
	    rep_attr_str(rep, "scenario_file", sc_file(sc), e) < 0 ||
	    rep_attr_u64(rep, "seed", (uint64_t)sc_int(sc, "cluster_run.seed"), e) < 0 ||
	    cluster_simulate(sc, rep, e) < 0 || rep_commit(rep, e) < 0)
		goto out;
	if (a->json)
		rep_print_json(rep, stdout);
	else if (!a->quiet)
		human_print(rep, false, stdout);
	rc = 0;
out:
	rep_free(rep);
	free(path);
	return rc;
}

int cmd_cluster(int argc, char **argv, struct err *e)
{
	struct cl_args a = { 0 };
	struct cfg_schema *schema = cluster_schema_new();
	struct scenario *sc = NULL;
	int rc = -1;

	if (schema == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	if ((rc = cl_parse(argc, argv, &a, e)) != 0) {
		rc = rc > 0 ? 0 : -1;
		goto out;
	}
	rc = -1;
	if (a.schema) {
		cfg_schema_print(schema, stdout);
		rc = 0;
		goto out;
	}
	if ((sc = sc_load(schema, a.file, a.ov, a.n_ov, e)) == NULL)
		goto out;
	rc = a.check ? cluster_check(sc, stdout, e) : cl_run(&a, sc, e);
out:
	sc_free(sc);
	cfg_schema_free(schema);
	free(a.ov);
	return rc;
}
