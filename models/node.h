/*
 * node.h -- the node catalog: what a server draws besides its GPUs and its
 * fabric NICs.
 *
 * Entries live in scenarios/catalog/nodes.cfg as `nodes.NAME = { ... }`,
 * each figure with its source or stated assumption: CPUs, memory, host-side
 * NICs and DPUs (storage and in-band networks; the scale-out fabric's NICs
 * are counted by topologies/platform.c from the links catalog), fans, local
 * storage, the NVSwitch chips of the baseboard (NVLink power is in the
 * node, as topologies/platform.h says) and the rest (BMC, board, PCIe
 * switches), each idle and busy, plus the power supplies' conversion
 * efficiency.  Every figure is required: nothing that draws power
 * defaults to 0 W.
 *
 * A training job picks one with cluster.node = "NAME" (a shared cluster
 * with fleet.node); without it, the first entry whose gpu is its GPU, else
 * the entry "generic".  An entry
 * describes a system of `gpus` GPUs; a job node of cluster.gpus_per_node
 * GPUs draws the entry's host power x gpus_per_node / gpus (the per-GPU
 * share: an NVL72 compute tray, a 4-GPU node on an 8-GPU system's host).
 *
 * A node is busy while its GPUs train and idle while it is held without
 * training (checkpoint stall, restart, waiting for capacity).  At the wall
 * it draws (GPU board power + host power) / psu_efficiency; the loss is
 * counted in the node's energy, the GPUs' own stays their board power.
 */
#ifndef MODELS_NODE_H
#define MODELS_NODE_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "sim/err.h"

enum host_part { HOST_CPU, HOST_MEM, HOST_NIC, HOST_FAN, HOST_STORAGE,
		 HOST_NVSWITCH, HOST_OTHER, HOST_PARTS };
extern const char *const node_part_names[HOST_PARTS];

struct node_spec {
	const char *name;	/* catalog entry */
	int gpus;		/* GPUs of the system the figures describe */
	double idle_w[HOST_PARTS], busy_w[HOST_PARTS];	/* whole system, DC */
	double psu_efficiency;	/* DC out / AC in */
	double host_op_scale;	/* CPU time per framework op over a DGX H100's */
};

extern const struct cfg_setting node_settings[];

/* The node the setting key names (empty: the default for gpu); an error
 * at key when there is none. */
int node_lookup(const struct scenario *sc, const char *key, const char *gpu,
		struct node_spec *out, struct err *e);
/* The training job's: cluster.node for cluster.gpu. */
int node_from_scenario(const struct scenario *sc, struct node_spec *out, struct err *e);
/* The job's node's host_op_scale; 1 where the scenario has no nodes
 * catalog or its node does not resolve (node_from_scenario says why where
 * the power is accounted). */
double node_host_op_scale(const struct scenario *sc);
/* Host power (DC, no GPUs) of one job node of gpus_per_node GPUs. */
double node_host_w(const struct node_spec *n, int gpus_per_node, bool busy);
/* Wall power of nodes whose GPUs draw gpu_w and hosts host_w (both DC):
 * the PSU loss on top, (gpu_w + host_w) x (1 / efficiency - 1). */
double node_psu_loss_w(const struct node_spec *n, double gpu_w, double host_w);

#endif
