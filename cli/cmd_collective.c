/*
 * cmd_collective.c -- `trainsim collective`: one collective on the
 * scenario's cluster, printed as nccl-tests prints it, so users can hold the
 * network model against their own nccl-tests runs.
 *
 *   trainsim collective SCENARIO.cfg [--op OP] [-b MIN] [-e MAX] [-f FACTOR]
 *                       [--ranks N] [--algo ring|tree|hier|nvls] [--imbalance F]
 *                       [-s KEY=VALUE]...
 *
 * Sizes take nccl-tests' suffixes K, M, G (powers of 1024).
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg.h"
#include "models/run.h"
#include "topologies/net.h"
#include "cli/args.h"
#include "cli/cmd.h"

static const char collective_usage[] =
	"usage: trainsim collective SCENARIO.cfg [options]\n"
	"  --op OP        all_reduce (default), reduce_scatter, all_gather,\n"
	"                 all_to_all (or alltoall, alltoallv), broadcast, sendrecv\n"
	"  --imbalance F  all_to_all as an alltoallv: rank 0 takes in F times the\n"
	"                 mean (as the busiest expert's rank of an MoE dispatch),\n"
	"                 the others share the rest evenly; 1 to the ranks\n"
	"                 (default 1: balanced)\n"
	"  -b MIN         smallest size in bytes (default 8; K, M, G suffixes)\n"
	"  -e MAX         largest size (default 1G)\n"
	"  -f FACTOR      size multiplier between rows (default 2)\n"
	"  --ranks N      ranks taking part (default: every GPU)\n"
	"  --algo A       auto (default), ring, tree, hier, nvls\n"
	"  -s KEY=VALUE   override a scenario setting (repeatable)\n"
	"Sizes are nccl-tests' S: all_reduce's buffer, all_gather's output,\n"
	"reduce_scatter's input, all_to_all's send buffer per rank (S/n to each\n"
	"peer; alltoallv: the mean rank's); algbw = S / time, busbw = algbw x\n"
	"nccl-tests' factor (all_to_all: (n-1)/n).\n";

static int parse_size(const char *text, double *bytes, struct err *e)
{
	char *end;
	double v = strtod(text, &end);

	switch (*end) {
	case 'K': case 'k': v *= 1024.0; end++; break;
	case 'M': case 'm': v *= 1024.0 * 1024.0; end++; break;
	case 'G': case 'g': v *= 1024.0 * 1024.0 * 1024.0; end++; break;
	default: break;
	}
	if (end == text || *end || !(v > 0) || !isfinite(v))
		return err_set(e, ERR_USAGE, "collective: size %s: expected a positive "
			       "number of bytes, optionally with K, M or G", text);
	/* 1 byte to 2^50 (1 PiB, thousands of times any GPU's memory): at
	 * 10^21 bytes the flow solver's byte counts lose the precision to
	 * finish ("flows cannot progress", exit 1). */
	if (v < 1 || v > 0x1p50)
		return err_set(e, ERR_USAGE, "collective: size %s: expected 1 byte to "
			       "1048576G (2^50 bytes)", text);
	*bytes = v;
	return 0;
}

struct coll_args {
	enum coll_op op;
	enum coll_algo algo;
	double min_bytes, max_bytes, factor, skew;
	int ranks;
	const char **overrides;
	size_t n_overrides;
	const char *scenario;
};

static int parse_collective(int argc, char **argv, struct coll_args *a, struct err *e)
{
	enum { OPT_OP = 256, OPT_RANKS, OPT_ALGO, OPT_IMBALANCE };
	static const struct option longs[] = {
		{ "op", required_argument, NULL, OPT_OP },
		{ "ranks", required_argument, NULL, OPT_RANKS },
		{ "algo", required_argument, NULL, OPT_ALGO },
		{ "imbalance", required_argument, NULL, OPT_IMBALANCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":b:e:f:s:h", longs, NULL)) != -1) {
		switch (ch) {
		case OPT_OP:
			if (coll_op_parse(optarg, &a->op) < 0)
				return err_set(e, ERR_USAGE, "collective: --op %s: unknown "
					       "operation (see trainsim collective --help)", optarg);
			break;
		case OPT_ALGO:
			if (coll_algo_parse(optarg, &a->algo) < 0)
				return err_set(e, ERR_USAGE, "collective: --algo %s: expected "
					       "auto, ring, tree, hier or nvls", optarg);
			break;
		case OPT_IMBALANCE:
			if (args_double("collective: --imbalance", optarg, nextafter(1, 0), HUGE_VAL,
					"a load of at least 1 (the busiest over the mean)",
					&a->skew, e) < 0)
				return -1;
			break;
		case OPT_RANKS:
			if (args_long("collective: --ranks", optarg, 1, INT_MAX,
				      "a positive integer", &v, e) < 0)
				return -1;
			a->ranks = (int)v;
			break;
		case 'b': if (parse_size(optarg, &a->min_bytes, e) < 0) return -1; break;
		case 'e': if (parse_size(optarg, &a->max_bytes, e) < 0) return -1; break;
		case 'f':
			if (args_double("collective: -f", optarg, 1, HUGE_VAL,
					"a factor above 1", &a->factor, e) < 0)
				return -1;
			break;
		case 's': a->overrides[a->n_overrides++] = optarg; break;
		case 'h': fputs(collective_usage, stdout); return 1;
		case ':':
			return err_set(e, ERR_USAGE, "collective: option %s needs a value",
				       argv[optind - 1]);
		default:
			return err_set(e, ERR_USAGE, "collective: unknown option %s "
				       "(see trainsim collective --help)", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return err_set(e, ERR_USAGE, "collective: expected one scenario file "
			       "(see trainsim collective --help)");
	a->scenario = argv[optind];
	return 0;
}

int cmd_collective(int argc, char **argv, struct err *e)
{
	struct coll_args a = { COLL_ALL_REDUCE, COLL_AUTO, 8, 1 << 30, 2, 1, 0, NULL, 0, NULL };
	struct cfg_schema *schema = NULL;
	struct scenario *sc = NULL;
	struct net_cfg *cfg = NULL;
	struct net *net = NULL;
	int rc;

	a.overrides = calloc((size_t)argc + 1, sizeof *a.overrides);
	if (a.overrides == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	rc = parse_collective(argc, argv, &a, e);
	if (rc != 0)
		goto out;
	rc = -1;
	if ((schema = args_run_schema(e)) == NULL)
		goto out;
	sc = sc_load(schema, a.scenario, a.overrides, a.n_overrides, e);
	if (sc == NULL || (cfg = net_cfg_from_scenario(sc, e)) == NULL ||
	    (net = net_build(cfg, e)) == NULL)
		goto out;
	rc = coll_table_print(net, a.op, a.algo, a.min_bytes, a.max_bytes, a.factor,
			      a.ranks, a.skew, stdout, e);
out:
	net_free(net);
	net_cfg_free(cfg);
	sc_free(sc);
	cfg_schema_free(schema);
	free(a.overrides);
	return rc < 0 ? -1 : 0;
}
