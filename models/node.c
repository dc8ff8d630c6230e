/*
 * node.c -- the node catalog's schema and reader, and host power.  The
 * figures themselves, and their sources, are in scenarios/catalog/nodes.cfg.
 */
#include <stdio.h>
#include <string.h>

#include "models/node.h"

const char *const node_part_names[HOST_PARTS] = {
	"cpu", "mem", "nic", "fan", "storage", "nvswitch", "other"
};

#define PART(p, what) \
	{ "nodes.*." p "_idle_w", CFG_FLOAT, "W", 0, 1e5, NULL, NULL, \
	  what ", whole system, held without training" }, \
	{ "nodes.*." p "_busy_w", CFG_FLOAT, "W", 0, 1e5, NULL, NULL, \
	  what ", whole system, while its GPUs train" }

const struct cfg_setting node_settings[] = {
	{ "nodes.*.gpu", CFG_STRING, "", 0, 0, "", NULL,
	  "GPU the system ships with, a gpus catalog name (empty: any)" },
	{ "nodes.*.gpus", CFG_INT, "", 1, 1024, NULL, NULL,
	  "GPUs of the system the power figures describe" },
	PART("cpu", "host CPUs (sockets together)"),
	PART("mem", "host memory (DIMMs together)"),
	PART("nic", "host-side NICs and DPUs (storage, in-band; not the fabric's)"),
	PART("fan", "fans"),
	PART("storage", "local drives"),
	PART("nvswitch", "NVSwitch chips on the baseboard (0: none)"),
	PART("other", "BMC, board, PCIe switches and the rest"),
	{ "nodes.*.psu_efficiency", CFG_FLOAT, "", 0.5, 1, NULL, NULL,
	  "power supplies: DC out / AC in" },
	{ "nodes.*.host_op_scale", CFG_FLOAT, "", 0.1, 100, "1", NULL,
	  "the host CPU's time to issue one framework operation over an x86 "
	  "DGX host's (Xeon Platinum 8480C), by which the stacks' CPU time per "
	  "launched kernel is scaled (models/host.h; 1: an x86 server CPU)" },
	{ "nodes.*.source", CFG_STRING, "", 0, 0, "", NULL,
	  "where the figures come from (user guide, URL, date; trainsim list)" },
	CFG_END
};

/* The default entry for gpu: the first for it, else "generic", else NULL. */
static const char *node_default(const struct scenario *sc, const char *gpu)
{
	const char *const *names;
	size_t n = sc_children(sc, "nodes", &names);

	for (size_t i = 0; i < n; i++)
		if (strcmp(sc_str(sc, "nodes.%s.gpu", names[i]), gpu) == 0)
			return names[i];
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], "generic") == 0)
			return names[i];
	return NULL;
}

int node_lookup(const struct scenario *sc, const char *key, const char *gpu,
		struct node_spec *out, struct err *e)
{
	const char *name = sc_str(sc, "%s", key);

	if (name[0] == '\0') {
		name = node_default(sc, gpu);
		if (name == NULL)
			return sc_error(sc, e, key, "no node for GPU \"%s\": the nodes "
					"catalog has no entry with that gpu and no \"generic\" "
					"one (expected @include of catalog/nodes.cfg, or a nodes "
					"entry named here)", gpu);
	} else if (!sc_has(sc, "nodes.%s", name)) {
		return sc_error(sc, e, key, "\"%s\" is not in the nodes catalog "
				"(expected a name in nodes)", name);
	}
	memset(out, 0, sizeof *out);
	out->name = name;
	out->gpus = (int)sc_int(sc, "nodes.%s.gpus", name);
	for (int p = 0; p < HOST_PARTS; p++) {
		out->idle_w[p] = sc_float(sc, "nodes.%s.%s_idle_w", name, node_part_names[p]);
		out->busy_w[p] = sc_float(sc, "nodes.%s.%s_busy_w", name, node_part_names[p]);
		if (out->busy_w[p] < out->idle_w[p]) {
			char path[256];
			snprintf(path, sizeof path, "nodes.%s.%s_busy_w", name,
				 node_part_names[p]);
			return sc_error(sc, e, path, "%g W busy is below %g W idle "
					"(expected busy >= idle)", out->busy_w[p],
					out->idle_w[p]);
		}
	}
	out->psu_efficiency = sc_float(sc, "nodes.%s.psu_efficiency", name);
	out->host_op_scale = sc_float(sc, "nodes.%s.host_op_scale", name);
	return 0;
}

double node_host_op_scale(const struct scenario *sc)
{
	struct node_spec n;
	struct err e = { 0 };

	if (!sc_has(sc, "nodes") || node_from_scenario(sc, &n, &e) < 0)
		return 1;
	return n.host_op_scale;
}

int node_from_scenario(const struct scenario *sc, struct node_spec *out, struct err *e)
{
	return node_lookup(sc, "cluster.node", sc_str(sc, "cluster.gpu"), out, e);
}

double node_host_w(const struct node_spec *n, int gpus_per_node, bool busy)
{
	const double *w = busy ? n->busy_w : n->idle_w;
	double sum = 0;

	for (int p = 0; p < HOST_PARTS; p++)
		sum += w[p];
	return sum * gpus_per_node / n->gpus;
}

double node_psu_loss_w(const struct node_spec *n, double gpu_w, double host_w)
{
	return (gpu_w + host_w) * (1 / n->psu_efficiency - 1);
}
