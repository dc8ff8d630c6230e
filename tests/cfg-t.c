/*
 * cfg-t.c -- the scenario loader (sim/cfg.h): every schema rule, includes,
 * overrides of each type, defaults, references, lists, unknown and renamed
 * settings, and the exact text of each message (file, line, key).
 *
 * Each test writes small scenario files into a fresh temporary directory;
 * the line numbers expected are the lines of those files, counted by hand
 * (the "L<n>" comments in the texts below mark them).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/cfg.h"
#include "tests/tap.h"

static const struct cfg_setting model_tab[] = {
	{ "model.layers", CFG_INT, "", 1, 100000, NULL, NULL, "transformer layers" },
	{ "model.hidden", CFG_INT, "", 1, 1e6, NULL, NULL, "hidden size" },
	{ "model.dropout", CFG_FLOAT, "", 0, 1, "0.1", NULL, "dropout probability" },
	{ "model.tokens", CFG_INT, "", 1, INFINITY, "1000", NULL, "training tokens" },
	{ "model.name", CFG_STRING, "", 0, 0, "gpt", NULL, "a label" },
	{ "parallel.schedule", CFG_ENUM, "", 0, 0, "1f1b", "1f1b|interleaved",
	  "pipeline schedule" },
	{ "parallel.recompute", CFG_BOOL, "", 0, 0, "false", NULL,
	  "activation recomputation" },
	CFG_END
};

static const struct cfg_setting cluster_tab[] = {
	{ "cluster.gpu", CFG_REF, "", 0, 0, NULL, "gpus", "GPU model" },
	{ "cluster.nodes", CFG_INT, "", 1, 1e6, "1", NULL, "nodes" },
	{ "gpus.*.tdp_w", CFG_FLOAT, "W", 1, 2000, NULL, NULL, "board power" },
	{ "gpus.*.memory_bytes", CFG_INT, "bytes", 1, INFINITY, "85899345920",
	  NULL, "HBM capacity (80 GiB = 80 * 2^30)" },
	{ "net.bw_Bps", CFG_FLOAT_LIST, "B/s", 0, INFINITY, "[1e9, 2.5e9]", NULL,
	  "bandwidth per tier" },
	{ "net.ranks", CFG_INT_LIST, "", 0, 1023, "[]", NULL, "ranks" },
	{ "train.interval_s", CFG_FLOAT, "s", 0, 0, "3600", NULL,
	  "checkpoint interval (no range)" },
	CFG_END
};

static char dir[64];
static char paths[32][256];
static int n_paths;
static struct cfg_schema *schema;

/* Write dir/name (creating dir/catalog when needed); returns its path. */
static const char *put(const char *name, const char *text)
{
	char *p = paths[n_paths];
	snprintf(p, sizeof paths[0], "%s/%s", dir, name);
	for (int i = 0; i < n_paths; i++)
		if (strcmp(paths[i], p) == 0)
			p = paths[i];
	if (p == paths[n_paths])
		n_paths++;
	FILE *f = fopen(p, "w");
	if (f == NULL) {
		perror(p);
		exit(99);
	}
	fputs(text, f);
	fclose(f);
	return p;
}

/* The catalog used by most tests: lines 1-9. */
static const char *catalog =
	"# GPUs                          L1\n"
	"gpus = {                      # L2\n"
	"  a100_80gb = {               # L3\n"
	"    tdp_w = 400;              # L4\n"
	"  };\n"
	"  h100_sxm = {                # L6\n"
	"    tdp_w = 700.0;            # L7\n"
	"    memory_bytes = 85899345920; # L8\n"
	"  };\n"
	"};\n";

static const char *base =
	"@include \"catalog/gpus.cfg\" # L1\n"
	"model = {                     # L2\n"
	"  layers = 96;                # L3\n"
	"  hidden = 12288;             # L4\n"
	"  tokens = 300000000000;      # L5\n"
	"};\n"
	"parallel = { schedule = \"interleaved\"; };  # L7\n"
	"cluster = { gpu = \"h100_sxm\"; };           # L8\n"
	"net = { ranks = [0, 5, 1023]; };           # L9\n";

static struct scenario *load(const char *text, const char *const *ov, size_t n,
			     struct err *e)
{
	const char *f = put("x.cfg", text);
	memset(e, 0, sizeof *e);
	return sc_load(schema, f, ov, n, e);
}

/* Load text as a check called name; on failure say why and return NULL. */
static struct scenario *load_ok(const char *text, const char *const *ov, size_t n,
				struct err *e, const char *name)
{
	struct scenario *sc = load(text, ov, n, e);

	if (!tap_ok(sc != NULL, "%s", name))
		tap_diag("%s", e->msg);
	return sc;
}

/* msg with its "@" (if any) replaced by the temp dir, into want. */
static void at_dir(const char *msg, char *want, size_t size)
{
	const char *at = strchr(msg, '@');

	if (at)
		snprintf(want, size, "%.*s%s%s", (int)(at - msg), msg, dir, at + 1);
	else
		snprintf(want, size, "%s", msg);
}

/* sc_error(sc, key, what) says exactly msg ("@" for the temp dir). */
struct said {
	const char *key, *what, *msg, *name;
};

static void says(struct scenario *sc, const struct said *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct err e = { 0 };
		char want[1024];

		sc_error(sc, &e, t[i].key, "%s", t[i].what);
		at_dir(t[i].msg, want, sizeof want);
		tap_ok(e.status == ERR_USAGE && strcmp(e.msg, want) == 0, "%s", t[i].name);
		if (strcmp(e.msg, want) != 0)
			tap_diag("got \"%s\", want \"%s\"", e.msg, want);
	}
}

/* Load text expecting failure with exactly msg (where "@" stands for the
 * temp dir). */
static void bad(const char *text, const char *const *ov, size_t n,
		const char *msg, const char *name)
{
	struct err e;
	char want[1024];
	struct scenario *sc = load(text, ov, n, &e);

	at_dir(msg, want, sizeof want);
	tap_ok(sc == NULL && e.status == ERR_USAGE && strcmp(e.msg, want) == 0,
	       "%s", name);
	if (sc != NULL || strcmp(e.msg, want) != 0)
		tap_diag("got \"%s\" (status %d), want \"%s\"", e.msg, e.status, want);
	sc_free(sc);
}

static void test_good(void)
{
	struct err e;
	const char *const *names;
	struct scenario *sc = load_ok(base, NULL, 0, &e,
				      "base scenario with an @include loads");

	if (sc == NULL)
		return;
	tap_int(sc_int(sc, "model.layers"), 96, "model.layers from the file");
	tap_int(sc_int(sc, "model.hidden"), 12288, "model.hidden from the file");
	tap_int(sc_int(sc, "model.tokens"), 300000000000LL,
		"300000000000 without L survives libconfig 1.5's 32-bit ints");
	tap_near(sc_float(sc, "model.dropout"), 0.1, 0,
		 "absent float gives the schema default 0.1");
	tap_ok(strcmp(sc_str(sc, "model.name"), "gpt") == 0,
	       "absent string gives the default \"gpt\"");
	tap_ok(!sc_bool(sc, "parallel.recompute"), "absent bool gives default false");
	tap_ok(strcmp(sc_str(sc, "parallel.schedule"), "interleaved") == 0,
	       "enum from the file");
	tap_ok(strcmp(sc_str(sc, "cluster.gpu"), "h100_sxm") == 0,
	       "ref to an entry of the included catalog");
	tap_near(sc_float(sc, "gpus.%s.tdp_w", sc_str(sc, "cluster.gpu")), 700, 0,
		 "printf-style path gpus.%%s.tdp_w");
	tap_near(sc_float(sc, "gpus.a100_80gb.tdp_w"), 400, 0,
		 "float setting written as integer 400");
	tap_int(sc_int(sc, "gpus.a100_80gb.memory_bytes"), 85899345920LL,
		"absent wildcard setting gives its default, 80 * 2^30");
	tap_int(sc_int(sc, "gpus.h100_sxm.memory_bytes"), 85899345920LL,
		"85899345920 in the included file is read whole");
	tap_int(sc_int(sc, "cluster.nodes"), 1, "int default");
	tap_int((long long)sc_list_len(sc, "net.ranks"), 3, "int list length 3");
	tap_near(sc_list_float(sc, 2, "net.ranks"), 1023, 0, "int list element 2");
	tap_near(sc_list_float(sc, 7, "net.ranks"), 0, 0,
		 "element past the end reads 0");
	tap_int((long long)sc_list_len(sc, "net.bw_Bps"), 2, "list default length");
	tap_near(sc_list_float(sc, 1, "net.bw_Bps"), 2.5e9, 0,
		 "list default element 1 = 2.5e9");
	tap_ok(sc_has(sc, "model.layers") && sc_has(sc, "gpus") &&
	       sc_has(sc, "gpus.a100_80gb") && !sc_has(sc, "model.dropout") &&
	       !sc_has(sc, "train"), "sc_has for settings and groups");
	size_t n = sc_children(sc, "gpus", &names);
	tap_ok(n == 2 && strcmp(names[0], "a100_80gb") == 0 &&
	       strcmp(names[1], "h100_sxm") == 0, "sc_children in file order");
	const char *const *again;
	sc_children(sc, "gpus", &again);
	tap_ok(again == names, "sc_children is cached, owned by the scenario");
	tap_int((long long)sc_children(sc, "train", &names), 0,
		"sc_children of an absent group is 0");
	tap_ok(strcmp(sc_file(sc), paths[1]) == 0, "sc_file is the path given");
	tap_ok(strstr(sc_text(sc, &e), "tdp_w = 700.0;") != NULL &&
	       strstr(sc_text(sc, &e), "layers = 96;") != NULL,
	       "sc_text holds the included and the main settings");

	/* sc_error: own line, enclosing group's line, or just the file. */
	char want[512];
	e.status = ERR_OK;
	tap_int(sc_error(sc, &e, "model.hidden", "not divisible by %d", 7), -1,
		"sc_error returns -1");
	snprintf(want, sizeof want, "%s/x.cfg:4: model.hidden: not divisible by 7", dir);
	tap_ok(e.status == ERR_USAGE && strcmp(e.msg, want) == 0,
	       "sc_error points at the setting's line (4)");
	static const struct said where[] = {
		{ "model.dropout", "too high", "@/x.cfg:2: model.dropout: too high",
		  "sc_error on an absent setting: group line 2" },
		{ "gpus.a100_80gb.memory_bytes", "too small",
		  "@/catalog/gpus.cfg:3: gpus.a100_80gb.memory_bytes: too small",
		  "sc_error in an included group names the included file, line 3" },
		{ "train.interval_s", "too short", "@/x.cfg: train.interval_s: too short",
		  "sc_error with no group: just the file" },
	};
	says(sc, where, sizeof where / sizeof *where);
	sc_free(sc);
}

static void test_file_errors(void)
{
	struct err e;
	char want[512];

	memset(&e, 0, sizeof e);
	snprintf(want, sizeof want, "%s/none.cfg", dir);
	tap_ok(sc_load(schema, want, NULL, 0, &e) == NULL && e.status == ERR_USAGE &&
	       strstr(e.msg, "/none.cfg: cannot read: No such file or directory"),
	       "missing file: FILE: cannot read: strerror");
	memset(&e, 0, sizeof e);
	snprintf(want, sizeof want, "%s/catalog", dir);
	tap_ok(sc_load(schema, want, NULL, 0, &e) == NULL && e.status == ERR_USAGE &&
	       strstr(e.msg, "/catalog: cannot read: Is a directory"),
	       "a directory: cannot read: Is a directory");
	bad("model = {\n  layers = 96;\n  hidden = ;\n};\n", NULL, 0,
	    "@/x.cfg:3: syntax error", "syntax error: libconfig's text and line 3");
	put("catalog/bad.cfg", "gpus = {\n  x = ;\n};\n");
	bad("# one\n@include \"catalog/bad.cfg\"\n", NULL, 0,
	    "@/catalog/bad.cfg:2: syntax error",
	    "syntax error inside an included file names that file, line 2");
	unsetenv("TRAINSIM_PATH");
	snprintf(want, sizeof want, "%s/x.cfg:1: @include \"catalog/none.cfg\": "
		 "not found in %s/, $TRAINSIM_PATH (not set), %s/scenarios", dir,
		 dir, TRAINSIM_DATADIR);
	tap_ok(load("@include \"catalog/none.cfg\"\n", NULL, 0, &e) == NULL &&
	       strcmp(e.msg, want) == 0,
	       "missing include file: its name and the places looked in "
	       "(tests/include-t has the rest)");
}

static void test_schema_rules(void)
{
	/* Lines: L1 include, L2 model = {, L3 layers, L4 hidden, L5 }, ... */
	char text[2048];
#define WITH(L3, L4, REST) (snprintf(text, sizeof text, \
	"@include \"catalog/gpus.cfg\"\nmodel = {\n%s\n%s\n};\n%s", L3, L4, REST), text)
#define GPU "cluster = { gpu = \"a100_80gb\"; };\n"

	/* Bad settings in the model group (lines 3 and 4) or after it: each
	 * load fails with MSG. */
	static const struct { const char *l3, *l4, *rest, *msg, *name; } bad_with[] = {
		{ "layers = -3;", "hidden = 1;", GPU,
		  "@/x.cfg:3: model.layers: -3 is out of range "
		  "(expected an integer in 1..100000)",
		  "int below its range, line 3" },
		{ "layers = 100001;", "hidden = 1;", GPU,
		  "@/x.cfg:3: model.layers: 100001 is out of range "
		  "(expected an integer in 1..100000)",
		  "int above its range (max inclusive)" },
		{ "layers = 3.5;", "hidden = 1;", GPU,
		  "@/x.cfg:3: model.layers: 3.5 is not an integer "
		  "(expected an integer in 1..100000)",
		  "float literal for an int" },
		{ "layers = \"96\";", "hidden = 1;", GPU,
		  "@/x.cfg:3: model.layers: \"96\" is not an integer "
		  "(expected an integer in 1..100000)",
		  "text for an int" },
		{ "layers = 1;", "hidden = 1; tokens = 0;", GPU,
		  "@/x.cfg:4: model.tokens: 0 is out of range (expected an integer >= 1)",
		  "open upper bound reads >= 1" },
		{ "layers = 1;", "hidden = 1; dropout = 1.5;", GPU,
		  "@/x.cfg:4: model.dropout: 1.5 is out of range "
		  "(expected a number in 0..1)",
		  "float out of range" },
		{ "layers = 1;", "hidden = 1; dropout = true;", GPU,
		  "@/x.cfg:4: model.dropout: true is not a number "
		  "(expected a number in 0..1)",
		  "bool for a float" },
		{ "layers = 1;", "hidden = 1; name = 3;", GPU,
		  "@/x.cfg:4: model.name: 3 is not text "
		  "(expected text in double quotes)",
		  "number for a string" },
		{ "layers = 1;", "hidden = 1;", "parallel = {\n  recompute = 1;\n};\n",
		  "@/x.cfg:7: parallel.recompute: 1 is not true or false "
		  "(expected true or false)",
		  "number for a bool, line 7" },
		{ "layers = 1;", "hidden = 1;", "parallel = { schedule = \"2f2b\"; };\n",
		  "@/x.cfg:6: parallel.schedule: \"2f2b\" is not a choice "
		  "(expected 1f1b|interleaved)",
		  "enum: not a choice" },
		{ "layers = 1;", "hidden = 1;", "cluster = {\n gpu = \"a100x\";\n};\n",
		  "@/x.cfg:7: cluster.gpu: no such entry \"a100x\" in gpus "
		  "(expected one of: a100_80gb, h100_sxm)",
		  "ref to a missing entry" },
		{ "layers = 1;", "hidden = 1;", GPU "net = 3;\n",
		  "@/x.cfg:7: net: 3 is not a group (expected a group of settings)",
		  "scalar where a group belongs" },
		{ "layers = { x = 1; };", "hidden = 1;", GPU,
		  "@/x.cfg:3: model.layers: a group is not an integer "
		  "(expected an integer in 1..100000)",
		  "group where an int belongs" },
		{ "layers = 1;", "hidden = 1;", GPU "net = { ranks = 3; };\n",
		  "@/x.cfg:7: net.ranks: 3 is not a list "
		  "(expected a list of integers in 0..1023)",
		  "scalar where a list belongs" },
		{ "layers = 1;", "hidden = 1;", GPU "net = { ranks = [0, 2000]; };\n",
		  "@/x.cfg:7: net.ranks: element 1: 2000 is out of range "
		  "(expected a list of integers in 0..1023)",
		  "list element out of range" },
		{ "layers = 1;", "hidden = 1;", GPU "net = { ranks = (0, 1.5); };\n",
		  "@/x.cfg:7: net.ranks: element 1: 1.5 is not an integer "
		  "(expected a list of integers in 0..1023)",
		  "float in an int list" },
		{ "layers = 1;", "hidden = 1;", GPU "net = { bw_Bps = [1.0, -2.0]; };\n",
		  "@/x.cfg:7: net.bw_Bps: element 1: -2 is out of range "
		  "(expected a list of numbers >= 0 B/s)",
		  "float list element below 0" },
		{ "layers = 1;", "hidden = 99999999999999999999;", GPU,
		  "@/x.cfg:4: model.hidden: 99999999999999999999 is out of range "
		  "(expected an integer in 1..1000000)",
		  "integer beyond 64 bits" },
		{ "layerz = 1;", "hidden = 1;", GPU,
		  "@/x.cfg:3: model.layerz: unknown setting (did you mean model.layers?)",
		  "unknown setting: typo suggests model.layers" },
		{ "layers = 1;", "hidden = 1;", GPU "layers = 2;\n",
		  "@/x.cfg:7: layers: unknown setting (did you mean model.layers?)",
		  "unknown setting: right name at the wrong level" },
		{ "layers = 1;", "hidden = 1;", GPU "zzz = { qqq = 1; };\n",
		  "@/x.cfg:7: zzz: unknown setting",
		  "unknown group: no close name" },
		{ "layers = 1;", "hidden = 1;", GPU "modle = { layers = 1; };\n",
		  "@/x.cfg:7: modle: unknown setting (did you mean model?)",
		  "unknown group: typo suggests model" },
		{ "layers = 1;", "", GPU,
		  "@/x.cfg:2: model.hidden: missing required setting",
		  "missing required, group present: the group's line 2" },
		{ "layers = 1;", "hidden = 1;", "",
		  "@/x.cfg: cluster.gpu: missing required setting",
		  "missing required ref" },
	};
	for (size_t k = 0; k < sizeof bad_with / sizeof *bad_with; k++)
		bad(WITH(bad_with[k].l3, bad_with[k].l4, bad_with[k].rest), NULL, 0,
		    bad_with[k].msg, bad_with[k].name);
	struct err e;
	struct scenario *sc = load(WITH("layers = 100000;", "hidden = 1;", GPU),
				   NULL, 0, &e);
	tap_ok(sc != NULL && sc_int(sc, "model.layers") == 100000,
	       "max itself is in range");
	sc_free(sc);
	sc = load(WITH("layers = 1;", "hidden = 1; dropout = 1;", GPU), NULL, 0, &e);
	tap_ok(sc != NULL && sc_float(sc, "model.dropout") == 1.0,
	       "a float setting accepts an integer literal");
	sc_free(sc);
	sc = load(WITH("layers = 1;", "hidden = 1;",
		       GPU "net = { bw_Bps = (1, 2.5); };\n"), NULL, 0, &e);
	tap_ok(sc != NULL && sc_list_len(sc, "net.bw_Bps") == 2 &&
	       sc_list_float(sc, 0, "net.bw_Bps") == 1.0,
	       "float list accepts ( ) lists with integers");
	sc_free(sc);
	/* Two ints on one line whose low 32 bits agree: 2^32 + 1 and 1. */
	sc = load(WITH("layers = 1; tokens = 4294967297;",
		       "hidden = 1; /* 5000000000 */ dropout = 0.5;", GPU
		       "net = { ranks = [1, 2]; bw_Bps = (4294967297, 1.5); };\n"),
		  NULL, 0, &e);
	tap_ok(sc != NULL && sc_int(sc, "model.layers") == 1 &&
	       sc_int(sc, "model.tokens") == 4294967297LL &&
	       sc_int(sc, "model.hidden") == 1 &&
	       sc_list_float(sc, 0, "net.bw_Bps") == 4294967297.0 &&
	       sc_list_float(sc, 1, "net.ranks") == 2,
	       "each big literal goes back to its own setting (2^32 + 1)");
	if (sc == NULL)
		tap_diag("%s", e.msg);
	sc_free(sc);

	/* Unknown settings, with and without a suggestion. */
	bad("model = { layers = 1; hidden = 1; };\ncluster = { gpu = \"x\"; };\n"
	    "gpus = {\n  x = { tdp_w = 1; };\n  * = { tdp_w = 1; };\n};\n",
	    NULL, 0, "@/x.cfg:5: gpus.*: unknown setting (\"*\" is not allowed "
	    "in a name)", "a literal * name is refused");
	put("catalog/gpus2.cfg", "gpus = {\n  a100 = {\n    tdp_w = 1;\n"
	    "    tdpw = 2;\n  };\n};\n");
	bad("@include \"catalog/gpus2.cfg\"\nmodel = { layers = 1; hidden = 1; };\n"
	    "cluster = { gpu = \"a100\"; };\n", NULL, 0,
	    "@/catalog/gpus2.cfg:4: gpus.a100.tdpw: unknown setting "
	    "(did you mean gpus.a100.tdp_w?)",
	    "unknown setting in an included wildcard group, line 4");

	/* Required settings. */
	bad("@include \"catalog/gpus.cfg\"\ncluster = { gpu = \"h100_sxm\"; };\n",
	    NULL, 0, "@/x.cfg: model.layers: missing required setting",
	    "missing required, group absent: just the file");
	put("catalog/gpus3.cfg", "gpus = {\n  a = { tdp_w = 1; };\n"
	    "  b = {\n    memory_bytes = 1;\n  };\n};\n");
	bad("@include \"catalog/gpus3.cfg\"\nmodel = { layers = 1; hidden = 1; };\n"
	    "cluster = { gpu = \"a\"; };\n", NULL, 0,
	    "@/catalog/gpus3.cfg:3: gpus.b.tdp_w: missing required setting",
	    "required under a wildcard: each child group (b, line 3)");
	put("catalog/gpus4.cfg", "gpus = {\n  a = { tdp_w = 5000; };\n};\n");
	bad("@include \"catalog/gpus4.cfg\"\nmodel = { layers = 1; hidden = 1; };\n"
	    "cluster = { gpu = \"a\"; };\n", NULL, 0,
	    "@/catalog/gpus4.cfg:2: gpus.a.tdp_w: 5000 is out of range "
	    "(expected a number in 1..2000 W)",
	    "range error inside an included file names it, line 2");
	sc = load("model = { layers = 1; hidden = 1; };\n"
		  "cluster = { gpu = \"x\"; };\ngpus = { x = { tdp_w = 1; }; };\n"
		  "train = {};\n", NULL, 0, &e);
	tap_ok(sc != NULL && sc_float(sc, "train.interval_s") == 3600 &&
	       sc_has(sc, "train"), "empty group allowed; default under it");
	sc_free(sc);
#undef WITH
#undef GPU
}

static void test_overrides(void)
{
	struct err e;
	const char *ov[] = {
		"model.layers=48",			/* int */
		"model.dropout = 1e-1",			/* float, spaces */
		"model.tokens=0x10",			/* hex int */
		"parallel.recompute=true",		/* bool */
		"model.name=\"big \\\"one\\\"\"",	/* quoted text */
		"parallel.schedule=1f1b",		/* enum, no quotes */
		"cluster.gpu=a100_80gb",		/* ref */
		"net.bw_Bps=[1e9, 2e9, 4e9]",		/* float list */
		"net.ranks=[]",				/* empty int list */
		"train.interval_s=1e9",			/* creates train group */
		"gpus.a100_80gb.tdp_w=350",		/* inside a wildcard group */
		"gpus.b200.tdp_w=1000",			/* creates a wildcard child */
	};
	struct scenario *sc = load_ok(base, ov, 12, &e, "twelve overrides of every type apply");

	if (sc == NULL)
		return;
	tap_int(sc_int(sc, "model.layers"), 48, "int override replaces 96");
	tap_near(sc_float(sc, "model.dropout"), 0.1, 0, "float override 1e-1");
	tap_int(sc_int(sc, "model.tokens"), 16, "hex int override 0x10 = 16");
	tap_ok(sc_bool(sc, "parallel.recompute"), "bool override true");
	tap_ok(strcmp(sc_str(sc, "model.name"), "big \"one\"") == 0,
	       "quoted text override with escapes");
	tap_ok(strcmp(sc_str(sc, "parallel.schedule"), "1f1b") == 0, "enum override");
	tap_ok(strcmp(sc_str(sc, "cluster.gpu"), "a100_80gb") == 0, "ref override");
	tap_ok(sc_list_len(sc, "net.bw_Bps") == 3 &&
	       sc_list_float(sc, 2, "net.bw_Bps") == 4e9, "float list override");
	tap_int((long long)sc_list_len(sc, "net.ranks"), 0, "empty list override");
	tap_near(sc_float(sc, "train.interval_s"), 1e9, 0,
		 "override creates a missing setting and its group (1e9)");
	tap_near(sc_float(sc, "gpus.a100_80gb.tdp_w"), 350, 0,
		 "override inside a wildcard group");
	const char *const *names;
	size_t n = sc_children(sc, "gpus", &names);
	tap_ok(n == 3 && strcmp(names[2], "b200") == 0,
	       "override creates a new catalog entry, last in order");
	tap_ok(strstr(sc_text(sc, &e), "interval_s = 1000000000.0;") != NULL &&
	       strstr(sc_text(sc, &e), "layers = 48;") != NULL &&
	       strstr(sc_text(sc, &e), "layers = 96;") == NULL,
	       "sc_text holds the overridden values, not the file's");
	static const struct said where[] = {
		{ "model.layers", "not divisible by 5",
		  "-s model.layers=48: model.layers: not divisible by 5",
		  "sc_error on an overridden setting names the override" },
		{ "gpus.b200.memory_bytes", "too small",
		  "-s gpus.b200.tdp_w=1000: gpus.b200.memory_bytes: too small",
		  "sc_error in a group an override created names that override" },
		{ "model.hidden", "odd", "@/x.cfg:4: model.hidden: odd",
		  "a setting not overridden keeps its line" },
	};
	says(sc, where, sizeof where / sizeof *where);
	sc_free(sc);

	/* A later override of the same key wins. */
	const char *twice[] = { "model.layers=2", "model.layers=3" };
	sc = load(base, twice, 2, &e);
	tap_ok(sc && sc_int(sc, "model.layers") == 3, "the last override wins");
	sc_free(sc);

	/* Bad overrides of base: -s OV fails with MSG. */
	static const struct { const char *ov, *msg, *name; } bad_ov[] = {
		{ "model.layers",
		  "-s model.layers: expected KEY=VALUE",
		  "override without =" },
		{ "=3",
		  "-s =3: expected KEY=VALUE",
		  "override with empty key" },
		{ "model.layerz=3",
		  "-s model.layerz=3: model.layerz: unknown setting "
		  "(did you mean model.layers?)",
		  "override of an unknown key" },
		{ "model.layers=abc",
		  "-s model.layers=abc: model.layers: abc is not an integer "
		  "(expected an integer in 1..100000)",
		  "override: text for an int" },
		{ "model.layers=3.5",
		  "-s model.layers=3.5: model.layers: 3.5 is not an integer "
		  "(expected an integer in 1..100000)",
		  "override: float for an int" },
		{ "model.layers=0",
		  "-s model.layers=0: model.layers: 0 is out of range "
		  "(expected an integer in 1..100000)",
		  "override: int out of range" },
		{ "parallel.schedule=gpipe",
		  "-s parallel.schedule=gpipe: parallel.schedule: \"gpipe\" "
		  "is not a choice (expected 1f1b|interleaved)",
		  "override: bad enum" },
		{ "cluster.gpu=v100",
		  "-s cluster.gpu=v100: cluster.gpu: no such entry \"v100\" "
		  "in gpus (expected one of: a100_80gb, h100_sxm)",
		  "override: bad ref" },
		{ "parallel.recompute=yes",
		  "-s parallel.recompute=yes: parallel.recompute: yes is not "
		  "true or false (expected true or false)",
		  "override: bad bool" },
		{ "net.ranks=[1, x]",
		  "-s net.ranks=[1, x]: net.ranks: element 1: x is not an "
		  "integer (expected a list of integers in 0..1023)",
		  "override: bad list element" },
		{ "net.ranks=3",
		  "-s net.ranks=3: net.ranks: 3 is not a list "
		  "(expected a list of integers in 0..1023)",
		  "override: list without [ ]" },
		{ "net.ranks=[1,2000]",
		  "-s net.ranks=[1,2000]: net.ranks: element 1: 2000 is out "
		  "of range (expected a list of integers in 0..1023)",
		  "override: list element out of range" },
		{ "model.dropout=nan",
		  "-s model.dropout=nan: model.dropout: nan is not a number "
		  "(expected a number in 0..1)",
		  "override: nan is not a number" },
		{ "model=3",
		  "-s model=3: model: is a group, not a setting "
		  "(expected a setting inside it)",
		  "override of a group" },
		{ "gpus.*.tdp_w=3",
		  "-s gpus.*.tdp_w=3: gpus.*.tdp_w: not a setting path "
		  "(expected names of letters, digits, - and _ joined by dots)",
		  "override key with a * is not a path" },
		{ "gpus.b200.memory_bytes=1",
		  "-s gpus.b200.memory_bytes=1: gpus.b200.tdp_w: "
		  "missing required setting",
		  "override creating an entry without its required setting" },
		{ "model.layers=99999999999999999999",
		  "-s model.layers=99999999999999999999: model.layers: "
		  "99999999999999999999 is out of range "
		  "(expected an integer in 1..100000)",
		  "override: beyond 64 bits" },
	};
	for (size_t k = 0; k < sizeof bad_ov / sizeof *bad_ov; k++)
		bad(base, &bad_ov[k].ov, 1, bad_ov[k].msg, bad_ov[k].name);
}

/* A schema of table t alone fails its first load with ERR_RUN and msg. */
static void bad_table(const struct cfg_setting *t, const char *msg,
		      const char *name)
{
	struct cfg_schema *s = cfg_schema_new();
	struct err e = { 0 };

	cfg_schema_add(s, t);
	struct scenario *sc = sc_load(s, put("y.cfg", "a = { };\n"), NULL, 0, &e);
	tap_ok(sc == NULL && e.status == ERR_RUN && strcmp(e.msg, msg) == 0,
	       "%s", name);
	if (sc != NULL || strcmp(e.msg, msg) != 0)
		tap_diag("got \"%s\" (status %d)", e.msg, e.status);
	sc_free(sc);
	cfg_schema_free(s);
}

/* What cfg_schema_print() writes for s (free it). */
static char *schema_text(const struct cfg_schema *s)
{
	struct tap_capture c;

	cfg_schema_print(s, tap_capture_start(&c));
	return tap_capture_end(&c);
}

static void test_schema_itself(void)
{
	static const struct cfg_setting bad_def[] = {
		{ "a.b", CFG_INT, "", 1, 10, "20", NULL, "default out of range" },
		CFG_END
	};
	static const struct cfg_setting bad_ref[] = {
		{ "a.c", CFG_REF, "", 0, 0, "fast", "links", "default names nothing" },
		CFG_END
	};
	struct cfg_schema *s = cfg_schema_new();
	struct err e = { 0 };
	const char *f = put("y.cfg", "a = { };\n");

	bad_table(bad_def, "schema: a.b: bad default \"20\": 20 is out of range "
		  "(expected an integer in 1..10)",
		  "a bad default is a bug in the table: ERR_RUN");
	cfg_schema_add(s, bad_ref);
	memset(&e, 0, sizeof e);
	char want[512];
	snprintf(want, sizeof want, "%s/y.cfg:1: a.c: no such entry \"fast\" in links "
		 "(the default; expected the name of an entry in links, which has "
		 "none)", dir);
	tap_ok(sc_load(s, f, NULL, 0, &e) == NULL && e.status == ERR_USAGE &&
	       strcmp(e.msg, want) == 0, "a ref default must name an entry");
	if (strcmp(e.msg, want) != 0)
		tap_diag("got %s", e.msg);
	cfg_schema_free(s);

	/* --schema: one line per setting. */
	char *buf = schema_text(schema);
	int lines = 0;
	for (char *p = buf; *p; p++)
		lines += *p == '\n';
	tap_int(lines, 14, "cfg_schema_print: one line per setting (7 + 7)");
	char *l = strstr(buf, "model.layers ");
	tap_ok(l && strstr(l, "int") && strstr(l, "1..100000") &&
	       strstr(l, "(required)") && strstr(l, "transformer layers") &&
	       strchr(l, '\n') > strstr(l, "transformer layers"),
	       "model.layers line: type, range, required, help");
	l = strstr(buf, "gpus.*.tdp_w ");
	tap_ok(l && strstr(l, " W ") && strstr(l, "1..2000") &&
	       strchr(l, '\n') > strstr(l, "board power"), "gpus.*.tdp_w line: unit W");
	l = strstr(buf, "parallel.schedule ");
	tap_ok(l && strstr(l, "1f1b|interleaved") && strstr(l, "enum"),
	       "enum line shows its choices");
	free(buf);
}

/* Renamed settings (CFG_RENAMED_TO): the old name, in a file or an
 * override, is refused with the new one, "*"s filled from the path used;
 * the new name reads as any setting; a rename line's own bugs are ERR_RUN. */
static const struct cfg_setting ren_tab[] = {
	{ "links.*.bw_gbit_s", CFG_FLOAT, "Gb/s", 0, 1e7, "0", NULL, "bandwidth" },
	CFG_RENAMED_TO("links.*.bw_gbps", "links.*.bw_gbit_s"),
	{ "pools.*.zones.*.count", CFG_INT, "", 0, 100, "0", NULL, "nodes" },
	CFG_RENAMED_TO("legacy.*.*.n", "pools.*.zones.*.count"),
	CFG_REMOVED_FOR("power.level.*", "levels are the GPU's catalog figures"),
	CFG_END
};

static void test_renames(void)
{
	struct cfg_schema *keep = schema;
	struct err e;

	schema = cfg_schema_new();
	cfg_schema_add(schema, ren_tab);
	bad("links = {             # L1\n"
	    "  hdr = {             # L2\n"
	    "    bw_gbps = 200.0;  # L3\n"
	    "  };\n"
	    "};\n", NULL, 0,
	    "@/x.cfg:3: links.hdr.bw_gbps: renamed to links.hdr.bw_gbit_s "
	    "(same value, Gb/s)", "old name in a file: the new one, with its unit");
	const char *ov[] = { "links.ndr.bw_gbps=400" };
	bad("", ov, 1, "-s links.ndr.bw_gbps=400: links.ndr.bw_gbps: renamed to "
	    "links.ndr.bw_gbit_s (same value, Gb/s)", "old name in an override");
	bad("legacy = { a = { b = { n = 3; }; }; };  # L1\n", NULL, 0,
	    "@/x.cfg:1: legacy.a.b.n: renamed to pools.a.zones.b.count (same value)",
	    "moved to another group: the n-th \"*\" keeps the n-th name; no unit");
	bad("power = { level = { tensor = 1.0; }; };  # L1\n", NULL, 0,
	    "@/x.cfg:1: power.level.tensor: removed: levels are the GPU's catalog "
	    "figures", "a removed setting: refused with the reason (CFG_REMOVED_FOR)");
	struct scenario *sc = load("legacy = { a = { b = { m = 3; }; }; };\n",
				   NULL, 0, &e);
	tap_ok(sc == NULL && strstr(e.msg, "legacy.a.b.m: unknown setting") != NULL,
	       "a name beside an old one in its group is still unknown");
	sc_free(sc);
	sc = load("links = { hdr = { bw_gbit_s = 200.0; }; };\n", NULL, 0, &e);
	tap_near(sc ? sc_float(sc, "links.hdr.bw_gbit_s") : -1, 200, 0,
		 "the new name loads (200 Gb/s)");
	sc_free(sc);
	char *buf = schema_text(schema);
	tap_ok(strstr(buf, "bw_gbps") == NULL && strstr(buf, "legacy") == NULL,
	       "--schema lists no old name");
	free(buf);
	cfg_schema_free(schema);
	schema = keep;

	static const struct cfg_setting to_nothing[] = {
		{ "a.new", CFG_INT, "", 0, 9, "0", NULL, "" },
		CFG_RENAMED_TO("a.old", "a.neu"), CFG_END
	};
	static const struct cfg_setting still_there[] = {
		{ "a.new", CFG_INT, "", 0, 9, "0", NULL, "" },
		{ "a.old", CFG_INT, "", 0, 9, "0", NULL, "" },
		CFG_RENAMED_TO("a.old", "a.new"), CFG_END
	};
	static const struct cfg_setting stars[] = {
		{ "a.*.new", CFG_INT, "", 0, 9, "0", NULL, "" },
		CFG_RENAMED_TO("a.*.*.old", "a.*.new"), CFG_END
	};
	bad_table(to_nothing, "schema: a.old: renamed to \"a.neu\", which is "
		  "not a setting", "rename to a path not in the schema: ERR_RUN");
	bad_table(still_there, "schema: a.old: renamed to a.new but still a "
		  "setting", "rename of a path still in the schema: ERR_RUN");
	bad_table(stars, "schema: a.*.*.old: renamed to a.*.new, with another "
		  "number of \"*\"", "rename with fewer \"*\": ERR_RUN");
	static const struct cfg_setting removed_live[] = {
		{ "a.old", CFG_INT, "", 0, 9, "0", NULL, "" },
		CFG_REMOVED_FOR("a.old", "gone"), CFG_END
	};
	bad_table(removed_live, "schema: a.old: removed, but with no reason or still "
		  "a setting", "removal of a path still in the schema: ERR_RUN");
}

/* A path outside the schema is a programming error: abort, not a value. */
static void test_bug_aborts(void)
{
	struct err e;
	struct scenario *sc = load(base, NULL, 0, &e);
	fflush(stdout);
	pid_t pid = fork();

	if (pid == 0) {
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(98);
		(void)sc_int(sc, "model.nope");
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
	       "sc_int on a path not in the schema aborts");
	sc_free(sc);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/cfg-t.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 99;
	}
	char sub[128];
	snprintf(sub, sizeof sub, "%s/catalog", dir);
	mkdir(sub, 0700);
	put("catalog/gpus.cfg", catalog);

	schema = cfg_schema_new();
	cfg_schema_add(schema, model_tab);
	cfg_schema_add(schema, cluster_tab);

	test_good();
	test_file_errors();
	test_schema_rules();
	test_overrides();
	test_schema_itself();
	test_renames();
	test_bug_aborts();

	cfg_schema_free(schema);
	for (int i = n_paths; i-- > 0;)
		unlink(paths[i]);
	rmdir(sub);
	rmdir(dir);
	return tap_done();
}
