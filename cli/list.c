/*
 * list.c -- `trainsim list KIND [FILE.cfg]`: a catalog's entries with their
 * key figures and where the figures come from.
 *
 *   gpus       catalog/gpus.cfg      tensor peaks, HBM, power, NVLink
 *   links      catalog/links.cfg     bandwidth per direction, efficiency,
 *                                    latency, switch radix, switch and NIC
 *                                    power
 *   nodes      catalog/nodes.cfg     each server's host power (idle, busy),
 *              + catalog/gpus.cfg    supplies, and its GPUs' totals
 *   storage    catalog/storage.cfg   checkpoint write and read bandwidth
 *   instances  catalog/prices.cfg    price per pricing class, date
 *   regions    regions/regions.cfg   grid intensity, PUE, electricity price
 *   models     models/NAME.cfg       the model presets' shapes, parameters
 *                                    (total and active per token)
 *   stacks     models/stack.c        the software stacks (training.stack):
 *                                    what each fuses and overlaps, its band
 *
 * The files are looked for the way a scenario in scenarios/ looks for an
 * @include: there (relative to the current directory), in $TRAINSIM_PATH,
 * then in the installed scenarios (sim/path.h); so the same command works
 * in the source tree and installed.  With FILE.cfg the
 * entries of that catalog or scenario are listed instead.  Values come
 * through the schema (units as its own, defaults filled in); 0, which the
 * catalogs use for "none" or "no figure", prints as "-".
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/cfg.h"
#include "sim/path.h"
#include "models/node.h"
#include "models/run.h"
#include "models/stack.h"
#include "models/transformer.h"
#include "cli/cmd.h"

#define LIST_COLS 10
#define LIST_CELL 512

static const char list_usage[] =
	"usage: trainsim list KIND [FILE.cfg]\n"
	"Catalog entries with their key figures and sources; KIND is one of\n"
	"gpus, links, nodes, storage, instances, regions, models, stacks.\n"
	"The catalogs are looked for in scenarios/, $TRAINSIM_PATH and the\n"
	"installed scenarios; FILE.cfg lists that catalog or scenario instead.\n"
	"  -h, --help     this text\n";

/* A column: a setting of each entry (GROUP.NAME.KEY), 'f' float, 'i'
 * int, 's' string, printed under head. */
struct col {
	const char *key, *head;
	char type;
};

struct kind {
	const char *name, *group, *file;
	struct col col[LIST_COLS];
};

static const struct kind kinds[] = {
	{ "gpus", "gpus", "catalog/gpus.cfg", {
		{ "peak_bf16_tflops", "BF16_TFLOP/s", 'f' },
		{ "peak_fp8_tflops", "FP8_TFLOP/s", 'f' },
		{ "hbm_gb", "HBM_GB", 'f' },
		{ "hbm_mib", "HBM_MiB", 'f' },
		{ "hbm_bw_gbyte_s", "HBM_GB/s", 'f' },
		{ "tdp_w", "TDP_W", 'f' },
		{ "idle_w", "idle_W", 'f' },
		{ "nvlink", "NVLink", 's' } } },
	{ "links", "links", "catalog/links.cfg", {
		{ "bw_gbit_s", "Gb/s", 'b' },	/* or bw_Bps: see cell() */
		{ "efficiency", "efficiency", 'f' },
		{ "latency_ns", "latency_ns", 'f' },
		{ "switch_radix", "radix", 'i' },
		{ "switch_w", "switch_W", 'f' },
		{ "nic_w", "NIC_W", 'f' },
		{ "pj_per_bit", "pJ/bit", 'f' } } },
	{ "nodes", "nodes", "catalog/nodes.cfg", { { NULL, NULL, 0 } } },
	{ "storage", "storage_types", "catalog/storage.cfg", {
		{ "write_bw_per_node_gbyte_s", "write_GB/s/node", 'f' },
		{ "read_bw_per_node_gbyte_s", "read_GB/s/node", 'f' },
		{ "write_bw_max_gbyte_s", "write_max_GB/s", 'f' },
		{ "read_bw_max_gbyte_s", "read_max_GB/s", 'f' },
		{ "latency_s", "latency_s", 'f' } } },
	{ "instances", "instances", "catalog/prices.cfg", {
		{ "gpus", "GPUs", 'i' },
		{ "gpu", "GPU", 's' },
		{ "on_demand_usd_per_hour", "on_demand_$/h", 'f' },
		{ "reserved_usd_per_hour", "reserved_$/h", 'f' },
		{ "capacity_block_usd_per_hour", "cap_block_$/h", 'f' },
		{ "spot_usd_per_hour", "spot_$/h", 'f' },
		{ "date", "date", 's' } } },
	{ "regions", "regions", "regions/regions.cfg", {
		{ "grid_g_per_kwh", "gCO2e/kWh", 'f' },
		{ "pue", "PUE", 'f' },
		{ "electricity_usd_per_kwh", "$/kWh", 'f' },
		{ "date", "date", 's' } } },
	{ "models", NULL, "models", { { NULL, NULL, 0 } } },
	{ "stacks", NULL, NULL, { { NULL, NULL, 0 } } },
	{ NULL, NULL, NULL, { { NULL, NULL, 0 } } },
};

/* ---- a table of text cells, printed aligned ---------------------------- */

struct table {
	size_t rows, cols;
	char (*cell)[LIST_CELL];	/* rows x cols */
};

static char *tab_add_row(struct table *t)
{
	void *p = realloc(t->cell, (t->rows + 1) * t->cols * sizeof *t->cell);
	if (p == NULL)
		return NULL;
	t->cell = p;
	memset(t->cell[t->rows * t->cols], 0, t->cols * sizeof *t->cell);
	return t->cell[t->rows++ * t->cols];
}

/* Every column padded to its widest cell but the last (the source). */
static void tab_print(const struct table *t, FILE *out)
{
	size_t w[LIST_COLS + 3] = { 0 };

	for (size_t r = 0; r < t->rows; r++)
		for (size_t c = 0; c < t->cols; c++)
			if (strlen(t->cell[r * t->cols + c]) > w[c])
				w[c] = strlen(t->cell[r * t->cols + c]);
	for (size_t r = 0; r < t->rows; r++)
		for (size_t c = 0; c < t->cols; c++)
			fprintf(out, c + 1 < t->cols ? "%-*s  " : "%.*s\n",
				c + 1 < t->cols ? (int)w[c] : LIST_CELL,
				t->cell[r * t->cols + c]);
}

/* ---- values ------------------------------------------------------------ */

static void num(char *buf, double v)
{
	if (v == 0)
		snprintf(buf, LIST_CELL, "-");
	else
		snprintf(buf, LIST_CELL, "%.6g", v);
}

/* One entry's value for a column ("-" where the entry does not give it:
 * a schema default is not the catalog's figure). */
static void cell(const struct scenario *sc, const char *group, const char *name,
		 const struct col *c, char *buf)
{
	if (c->type != 'b' && !sc_has(sc, "%s.%s.%s", group, name, c->key)) {
		snprintf(buf, LIST_CELL, "-");
		return;
	}
	switch (c->type) {
	case 'f':
		num(buf, sc_float(sc, "%s.%s.%s", group, name, c->key));
		break;
	case 'i':
		num(buf, (double)sc_int(sc, "%s.%s.%s", group, name, c->key));
		break;
	case 'b': {	/* a link's bandwidth is given in Gb/s or in B/s */
		double gbit = sc_float(sc, "%s.%s.bw_gbit_s", group, name);
		num(buf, gbit > 0 ? gbit : sc_float(sc, "%s.%s.bw_Bps", group, name) * 8e-9);
		break;
	}
	default: {
		const char *s = sc_str(sc, "%s.%s.%s", group, name, c->key);
		snprintf(buf, LIST_CELL, "%s", s[0] ? s : "-");
		break;
	}
	}
}

/* ---- the listings ------------------------------------------------------ */

/* The file a kind lists: given, or found like an @include. */
static int find(const char *given, const char *rel, char *out, size_t cap,
		struct err *e)
{
	char tried[512];

	if (given != NULL) {
		snprintf(out, cap, "%s", given);
		return 0;
	}
	if (path_find("scenarios", "scenarios", rel, out, cap, tried, sizeof tried) == 0)
		return 0;
	return err_set(e, ERR_USAGE, "list: %s: not found in %s", rel, tried);
}

static int list_entries(const struct kind *k, const struct scenario *sc,
			const char *file, FILE *out, struct err *e)
{
	const char *const *names;
	size_t n = sc_children(sc, k->group, &names), nc = 0;
	struct table t = { 0, 0, NULL };
	char *row;

	while (nc < LIST_COLS && k->col[nc].key)
		nc++;
	t.cols = nc + 2;
	if ((row = tab_add_row(&t)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	snprintf(row, LIST_CELL, "%s", k->name);
	for (size_t c = 0; c < nc; c++)
		snprintf(row + (c + 1) * LIST_CELL, LIST_CELL, "%s", k->col[c].head);
	snprintf(row + (nc + 1) * LIST_CELL, LIST_CELL, "source");
	for (size_t i = 0; i < n; i++) {
		if ((row = tab_add_row(&t)) == NULL) {
			free(t.cell);
			return err_set(e, ERR_RUN, "out of memory");
		}
		snprintf(row, LIST_CELL, "%s", names[i]);
		for (size_t c = 0; c < nc; c++)
			cell(sc, k->group, names[i], &k->col[c], row + (c + 1) * LIST_CELL);
		const char *src = sc_str(sc, "%s.%s.source", k->group, names[i]);
		snprintf(row + (nc + 1) * LIST_CELL, LIST_CELL, "%s", src[0] ? src : "-");
	}
	fprintf(out, "# %zu %s from %s\n", n, k->name, file);
	tab_print(&t, out);
	free(t.cell);
	return 0;
}

/* Nodes: each server type with its host's power summed over the parts
 * (idle and busy, DC), its supplies' efficiency and its GPUs' totals from
 * the gpus catalog (found next to the nodes). */
static int list_nodes(const struct scenario *nodes, const struct scenario *gpus,
		      const char *file, FILE *out, struct err *e)
{
	static const char *const head[] = { "nodes", "GPUs", "GPU", "host_idle_W",
		"host_busy_W", "PSU_eff", "GPU_TDP_kW", "HBM_GB", "source" };
	const char *const *names;
	size_t n = sc_children(nodes, "nodes", &names);
	struct table t = { 0, 9, NULL };
	char *row = tab_add_row(&t);

	if (row == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (size_t c = 0; c < 9; c++)
		snprintf(row + c * LIST_CELL, LIST_CELL, "%s", head[c]);
	for (size_t i = 0; i < n; i++) {
		if ((row = tab_add_row(&t)) == NULL) {
			free(t.cell);
			return err_set(e, ERR_RUN, "out of memory");
		}
		const char *gpu = sc_str(nodes, "nodes.%s.gpu", names[i]);
		double g = (double)sc_int(nodes, "nodes.%s.gpus", names[i]), idle = 0, busy = 0;
		for (int p = 0; p < HOST_PARTS; p++) {
			idle += sc_float(nodes, "nodes.%s.%s_idle_w", names[i], node_part_names[p]);
			busy += sc_float(nodes, "nodes.%s.%s_busy_w", names[i], node_part_names[p]);
		}
		snprintf(row, LIST_CELL, "%s", names[i]);
		num(row + LIST_CELL, g);
		snprintf(row + 2 * LIST_CELL, LIST_CELL, "%s", gpu[0] ? gpu : "-");
		num(row + 3 * LIST_CELL, idle);
		num(row + 4 * LIST_CELL, busy);
		num(row + 5 * LIST_CELL, sc_float(nodes, "nodes.%s.psu_efficiency", names[i]));
		if (gpus && gpu[0] && sc_has(gpus, "gpus.%s", gpu)) {
			num(row + 6 * LIST_CELL, g * sc_float(gpus, "gpus.%s.tdp_w", gpu) / 1e3);
			num(row + 7 * LIST_CELL, g * sc_float(gpus, "gpus.%s.hbm_gb", gpu));
		} else
			for (size_t c = 6; c < 8; c++)
				snprintf(row + c * LIST_CELL, LIST_CELL, "-");
		const char *src = sc_str(nodes, "nodes.%s.source", names[i]);
		snprintf(row + 8 * LIST_CELL, LIST_CELL, "%s", src[0] ? src : "-");
	}
	fprintf(out, "# %zu nodes from %s (host: the parts besides GPUs and fabric "
		"NICs, DC; GPUs from the gpus catalog)\n", n, file);
	tab_print(&t, out);
	free(t.cell);
	return 0;
}

/* The first comment line of a preset: its source (the presets open with
 * the model's name and paper). */
static void first_comment(const char *path, char *buf)
{
	FILE *f = fopen(path, "r");
	char line[512];

	snprintf(buf, LIST_CELL, "-");
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f)) {
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '#')
			continue;
		p += strspn(p, "# ");
		p[strcspn(p, "\n")] = '\0';
		if (*p) {
			snprintf(buf, LIST_CELL, "%s", p);
			break;
		}
	}
	fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_models(const struct cfg_schema *schema, const char *dir, FILE *out,
		       struct err *e)
{
	static const struct col col[] = {
		{ "name", "name", 's' }, { "layers", "layers", 'i' },
		{ "hidden", "hidden", 'i' }, { "heads", "heads", 'i' },
		{ "seq_len", "seq_len", 'i' }, { "vocab", "vocab", 'i' },
	};
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	struct table t = { 0, 10, NULL };
	int rc = 0;

	if (d == NULL)
		return err_set(e, ERR_USAGE, "list: %s: not a directory of presets", dir);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char **p;
		if (len < 5 || strcmp(de->d_name + len - 4, ".cfg") != 0 ||
		    de->d_name[0] == '.')
			continue;
		if ((p = realloc(names, (n + 1) * sizeof *names)) == NULL ||
		    (p[n] = strdup(de->d_name)) == NULL) {
			names = p ? p : names;
			rc = err_set(e, ERR_RUN, "out of memory");
			break;
		}
		names = p;
		n++;
	}
	closedir(d);
	if (rc == 0)
		qsort(names, n, sizeof *names, cmp_str);
	char *row = rc == 0 ? tab_add_row(&t) : NULL;
	if (rc == 0 && row == NULL)
		rc = err_set(e, ERR_RUN, "out of memory");
	if (rc == 0) {
		snprintf(row, LIST_CELL, "models");
		for (size_t c = 0; c < 6; c++)
			snprintf(row + (c + 1) * LIST_CELL, LIST_CELL, "%s", col[c].head);
		snprintf(row + 7 * LIST_CELL, LIST_CELL, "params_B");
		snprintf(row + 8 * LIST_CELL, LIST_CELL, "active_B");
		snprintf(row + 9 * LIST_CELL, LIST_CELL, "source");
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		struct scenario *sc = sc_load_catalog(schema, path, e);
		if (sc == NULL || (row = tab_add_row(&t)) == NULL) {
			rc = sc ? err_set(e, ERR_RUN, "out of memory") : -1;
			sc_free(sc);
			break;
		}
		size_t base = strlen(names[i]) - 4;	/* without .cfg */
		memcpy(row, names[i], base < LIST_CELL ? base : LIST_CELL - 1);
		for (size_t c = 0; c < 6; c++) {
			char *b = row + (c + 1) * LIST_CELL;
			if (col[c].type == 's')
				snprintf(b, LIST_CELL, "%s", sc_str(sc, "model.%s", col[c].key));
			else
				num(b, (double)sc_int(sc, "model.%s", col[c].key));
		}
		struct tfm m;
		tfm_from_scenario(sc, &m);
		snprintf(row + 7 * LIST_CELL, LIST_CELL, "%.2f", tfm_params(&m) / 1e9);
		snprintf(row + 8 * LIST_CELL, LIST_CELL, "%.2f", tfm_active_params(&m) / 1e9);
		first_comment(path, row + 9 * LIST_CELL);
		sc_free(sc);
	}
	if (rc == 0) {
		fprintf(out, "# %zu model presets in %s (scenarios @include one: "
			"@include \"models/NAME.cfg\")\n", n, dir);
		tab_print(&t, out);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(t.cell);
	return rc;
}

/* Stacks: a table in C (a scenario picks one by name), not a catalog
 * file; the defaults and kernels each decides, yes or no, its band. */
static int list_stacks(FILE *out, struct err *e)
{
	static const char *const head[] = { "stacks", "fused", "flash", "accum_fusion",
		"seq_parallel", "dist_opt", "grad_overlap", "tp_overlap", "async_tp", "zero",
		"band", "what (sources: models/stack.c)" };
	struct table t = { 0, sizeof head / sizeof head[0], NULL };
	char *row = tab_add_row(&t);

	if (row == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (size_t c = 0; c < t.cols; c++)
		snprintf(row + c * LIST_CELL, LIST_CELL, "%s", head[c]);
	for (const struct stack_spec *st = stack_table; st->name; st++) {
		const bool f[] = { st->fused_kernels, st->flash_attention, st->grad_accum_fusion,
				   st->sequence_parallel, st->distributed_optimizer,
				   st->overlap_grad_reduce, st->tp_comm_overlap,
				   st->tp_async_allreduce };
		size_t c = 0;

		if ((row = tab_add_row(&t)) == NULL) {
			free(t.cell);
			return err_set(e, ERR_RUN, "out of memory");
		}
		snprintf(row, LIST_CELL, "%s", st->name);
		for (; c < sizeof f / sizeof f[0]; c++)
			snprintf(row + (c + 1) * LIST_CELL, LIST_CELL, "%s", f[c] ? "yes" : "no");
		snprintf(row + ++c * LIST_CELL, LIST_CELL, "%d", st->zero_stage);
		snprintf(row + ++c * LIST_CELL, LIST_CELL, "%g%%", 100 * st->band);
		snprintf(row + ++c * LIST_CELL, LIST_CELL, "%s", st->what);
	}
	fprintf(out, "# %zu stacks (training.stack; the first is the default)\n", t.rows - 1);
	tab_print(&t, out);
	free(t.cell);
	return 0;
}

static int run_list(const struct kind *k, const char *given, FILE *out, struct err *e)
{
	struct cfg_schema *schema = run_schema_new();
	struct scenario *sc = NULL, *gpus = NULL;
	char path[4096], gpath[4096];
	int rc = -1;

	if (schema == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	if (k->file == NULL) {
		cfg_schema_free(schema);
		return given ? err_set(e, ERR_USAGE, "list stacks: no FILE.cfg (the stacks "
				       "are built in: models/stack.c)") : list_stacks(out, e);
	}
	if (k->group == NULL && given == NULL &&
	    path_find("scenarios", "scenarios", k->file, path, sizeof path, gpath,
		      sizeof gpath) < 0) {
		fprintf(out, "# no model presets: no models/ in %s\n", gpath);
		rc = 0;
		goto out;
	}
	if (find(given, k->file, path, sizeof path, e) < 0)
		goto out;
	if (k->group == NULL) {
		rc = list_models(schema, path, out, e);
		goto out;
	}
	if ((sc = sc_load_catalog(schema, path, e)) == NULL)
		goto out;
	if (strcmp(k->name, "nodes") != 0) {
		rc = list_entries(k, sc, path, out, e);
		goto out;
	}
	/* The GPUs of a given file are its own; else the catalog's. */
	if (given != NULL && sc_has(sc, "gpus"))
		rc = list_nodes(sc, sc, path, out, e);
	else if (find(NULL, "catalog/gpus.cfg", gpath, sizeof gpath, e) == 0 &&
		 (gpus = sc_load_catalog(schema, gpath, e)) != NULL)
		rc = list_nodes(sc, gpus, path, out, e);
out:
	sc_free(gpus);
	sc_free(sc);
	cfg_schema_free(schema);
	return rc;
}

int cmd_list(int argc, char **argv, struct err *e)
{
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		fputs(list_usage, stdout);
		return 0;
	}
	if (argc < 2 || argc > 3 || argv[1][0] == '-' || (argc == 3 && argv[2][0] == '-'))
		return err_set(e, ERR_USAGE, "%s", list_usage);
	for (const struct kind *k = kinds; k->name; k++)
		if (strcmp(argv[1], k->name) == 0)
			return run_list(k, argc == 3 ? argv[2] : NULL, stdout, e);
	return err_set(e, ERR_USAGE, "list: %s: unknown kind (expected gpus, links, "
		       "nodes, storage, instances, regions, models or stacks)", argv[1]);
}
