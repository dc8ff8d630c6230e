/*
 * graph.c -- nodes and duplex links in growable arrays; a breadth-first
 * search over a compressed adjacency built on demand checks connectivity.
 */
#include <stdlib.h>
#include <string.h>

#include "topologies/graph.h"

const char *const graph_tier_names[TIER_COUNT] = {
	"nvlink", "pcie", "leaf", "spine", "core", "terminal", "local", "global",
};

void graph_init(struct graph *g)
{
	memset(g, 0, sizeof *g);
}

void graph_free(struct graph *g)
{
	free(g->node_kind);
	free(g->src);
	free(g->dst);
	free(g->bw_Bps);
	free(g->latency_ns);
	free(g->tier);
	memset(g, 0, sizeof *g);
}

static int grow(void **p, size_t elem, int32_t n)
{
	void *q = realloc(*p, elem * (size_t)n);

	if (q == NULL)
		return -1;
	*p = q;
	return 0;
}

int32_t graph_add_nodes(struct graph *g, enum node_kind kind, int32_t count,
			struct err *e)
{
	if (count < 0 || g->n_nodes > INT32_MAX - count)
		return err_set(e, ERR_USAGE, "network too large (more than 2^31 nodes)");
	if (g->n_nodes + count > g->cap_nodes) {
		int64_t cap = (int64_t)(g->n_nodes + count) * 3 / 2 + 16;
		if (cap > INT32_MAX)
			cap = INT32_MAX;
		if (grow((void **)&g->node_kind, 1, (int32_t)cap) < 0)
			return err_set(e, ERR_RUN, "out of memory for network nodes");
		g->cap_nodes = (int32_t)cap;
	}
	memset(g->node_kind + g->n_nodes, kind, (size_t)count);
	g->n_nodes += count;
	return g->n_nodes - count;
}

int graph_reserve_links(struct graph *g, int32_t n, struct err *e)
{
	int64_t want = (int64_t)g->n_links + n;

	if (want > INT32_MAX - 2)
		return err_set(e, ERR_USAGE, "network too large (more than 2^31 links)");
	if (want <= g->cap_links)
		return 0;
	int32_t cap = (int32_t)want;
	if (grow((void **)&g->src, sizeof *g->src, cap) < 0 ||
	    grow((void **)&g->dst, sizeof *g->dst, cap) < 0 ||
	    grow((void **)&g->bw_Bps, sizeof *g->bw_Bps, cap) < 0 ||
	    grow((void **)&g->latency_ns, sizeof *g->latency_ns, cap) < 0 ||
	    grow((void **)&g->tier, sizeof *g->tier, cap) < 0)
		return err_set(e, ERR_RUN, "out of memory for network links");
	g->cap_links = cap;
	return 0;
}

int32_t graph_add_duplex(struct graph *g, int32_t a, int32_t b, double bw_Bps,
			 int32_t latency_ns, enum tier tier, struct err *e)
{
	if (g->n_links + 2 > g->cap_links) {
		int64_t more = (int64_t)g->n_links / 2 + 64;
		if (more > INT32_MAX - 2 - g->n_links)
			more = INT32_MAX - 2 - g->n_links;
		if (graph_reserve_links(g, (int32_t)more, e) < 0)
			return -1;
	}
	int32_t l = g->n_links;
	for (int k = 0; k < 2; k++) {
		g->src[l + k] = k ? b : a;
		g->dst[l + k] = k ? a : b;
		g->bw_Bps[l + k] = bw_Bps;
		g->latency_ns[l + k] = latency_ns;
		g->tier[l + k] = (uint8_t)tier;
	}
	g->n_links += 2;
	return l;
}

int graph_check_connected(const struct graph *g, struct err *e)
{
	int32_t n = g->n_nodes;
	int32_t *start = NULL, *adj = NULL, *queue = NULL;
	uint8_t *seen = NULL;
	int rc = -1;

	if (n <= 1)
		return 0;
	start = calloc((size_t)n + 1, sizeof *start);
	adj = malloc(sizeof *adj * (size_t)(g->n_links ? g->n_links : 1));
	queue = malloc(sizeof *queue * (size_t)n);
	seen = calloc((size_t)n, 1);
	if (!start || !adj || !queue || !seen) {
		err_set(e, ERR_RUN, "out of memory checking the network");
		goto out;
	}
	/* Compressed adjacency: out-links of node v are adj[start[v]..start[v+1]). */
	for (int32_t l = 0; l < g->n_links; l++)
		start[g->src[l] + 1]++;
	for (int32_t v = 0; v < n; v++)
		start[v + 1] += start[v];
	for (int32_t l = 0; l < g->n_links; l++)
		adj[start[g->src[l]]++] = g->dst[l];
	for (int32_t v = n; v > 0; v--)
		start[v] = start[v - 1];
	start[0] = 0;

	int32_t head = 0, tail = 0;
	queue[tail++] = 0;
	seen[0] = 1;
	while (head < tail) {
		int32_t v = queue[head++];
		for (int32_t i = start[v]; i < start[v + 1]; i++)
			if (!seen[adj[i]]) {
				seen[adj[i]] = 1;
				queue[tail++] = adj[i];
			}
	}
	if (tail == n) {
		rc = 0;
		goto out;
	}
	for (int32_t v = 0; v < n; v++)
		if (!seen[v]) {
			err_set(e, ERR_USAGE, "the network is disconnected: node %d "
				"(%s) cannot be reached from GPU 0", (int)v,
				g->node_kind[v] == NODE_GPU ? "a GPU" : "a switch");
			break;
		}
out:
	free(start);
	free(adj);
	free(queue);
	free(seen);
	return rc;
}

size_t graph_bytes(const struct graph *g)
{
	return (size_t)g->cap_nodes +
	       (size_t)g->cap_links * (2 * sizeof(int32_t) + sizeof(double) +
				       sizeof(int32_t) + 1);
}
