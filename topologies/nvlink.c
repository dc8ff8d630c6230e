/*
 * nvlink.c -- scale-up domains: the GPUs of a node (or of a larger NVLink
 * domain such as a 72-GPU NVL72 rack) joined through NVSwitch.
 *
 * The NVSwitch chips of a domain act as one non-blocking crossbar (true of
 * DGX A100/H100 and of NVL72: every GPU reaches every other at its full
 * NVLink bandwidth), so a domain is one switch node and each GPU one duplex
 * link to it whose bandwidth per direction is the GPU's whole NVLink
 * bandwidth (A100: 12 links x 25 GB/s = 300 GB/s each way; H100: 450).
 * Domains are consecutive GPU numbers: domain = gpu / domain_gpus.
 */
#include "topologies/topo.h"

int32_t nvl_build(struct graph *g, int gpus, int domain_gpus,
		  const struct link_spec *link, struct err *e)
{
	if (domain_gpus <= 1)
		return -2;
	int domains = gpus / domain_gpus;
	int32_t sw0 = graph_add_nodes(g, NODE_NVSWITCH, domains, e);
	if (sw0 < 0 || graph_reserve_links(g, 2 * (int32_t)gpus, e) < 0)
		return -1;
	double bw = link->bw_Bps * link->efficiency;
	int32_t first = -1;
	for (int i = 0; i < gpus; i++) {
		int32_t l = graph_add_duplex(g, i, sw0 + i / domain_gpus, bw,
					     (int32_t)link->latency_ns, TIER_NVLINK, e);
		if (l < 0)
			return -1;
		if (i == 0)
			first = l;
	}
	return first;
}
