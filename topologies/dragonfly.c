/*
 * dragonfly.c -- the dragonfly of Kim, Dally, Scott and Abts (ISCA 2008).
 *
 * p terminals per router, a routers per group joined all-to-all by local
 * links, h global links per router, g groups (g <= a*h + 1, so that every
 * pair of groups has at least one global link).  Each group has a*h global
 * channels c = router*h + port; when g - 1 < a*h the channels repeat the
 * pattern floor(a*h/(g-1)) times (parallel links between group pairs) and
 * the rest stay dark.  Global arrangements (Hastings et al. 2015):
 *   absolute  channel offset o of group G goes to group o (o < G) or o+1;
 *   relative  channel offset o of group G goes to group (G + o + 1) mod g.
 * Both pair channels one-to-one, so every global link is a duplex pair.
 *
 * Routing (per flow, since flows are the model's packets):
 *   minimal  local hop to the router holding the channel to the target
 *            group, the global link, a local hop to the destination router:
 *            at most one global link;
 *   Valiant  minimal to an intermediate group (spread over the groups, see
 *            valiant_route), then minimal to the destination: two global
 *            links, load spread;
 *   UGAL-L   per flow, minimal unless its load is worse than Valiant's.
 *            Load is hop count times the fullest link of the path, in
 *            flows per unit of bandwidth (with the new flow).  A router
 *            sees only its own queues, but under credit flow control they
 *            fill to mirror the downstream bottleneck, so in a flow model
 *            the path's fullest link is what the local queue reflects.
 * Intra-group traffic is always minimal (one local hop).  Parallel global
 * links between a pair of groups are used in turn (by source, destination
 * and channel), as adaptive routers spread over them.
 */
#include <stdlib.h>

#include "topologies/topo.h"

static int32_t pair_index(int a, int i, int j)
{
	/* i < j: pairs (0,1..a-1), (1,2..a-1), ... numbered in order. */
	return (int32_t)(i * (2 * a - i - 1) / 2 + (j - i - 1));
}

static int32_t local_link(const struct df *df, int32_t ri, int32_t rj)
{
	int a = df->a, grp = ri / a, i = ri % a, j = rj % a;
	int32_t base = df->local_link0 + 2 * (int32_t)((int64_t)grp * (a * (a - 1) / 2));

	if (i < j)
		return base + 2 * pair_index(a, i, j);
	return (base + 2 * pair_index(a, j, i)) ^ 1;
}

/* Offset of the channel from group G to group T, and its peer. */
static int chan_offset(const struct df *df, int G, int T)
{
	if (df->arrangement == DF_ABSOLUTE)
		return T < G ? T : T - 1;
	return ((T - G - 1) % df->g + df->g) % df->g;
}

static int chan_target(const struct df *df, int G, int off)
{
	if (df->arrangement == DF_ABSOLUTE)
		return off < G ? off : off + 1;
	return (G + off + 1) % df->g;
}

static int auto_size(struct df_params *p, int n_ep)
{
	for (int h = 1; h <= 64; h++) {
		int a = 2 * h;
		int64_t max = (int64_t)a * h * ((int64_t)a * h + 1);
		if (max >= n_ep) {
			p->p = h;
			p->a = a;
			p->h = h;
			p->g = (int)(((int64_t)n_ep + a * h - 1) / ((int64_t)a * h));
			return 0;
		}
	}
	return -1;
}

static int check_params(struct df_params *p, int n_ep, const char **bad_key,
			struct err *e)
{
	if (p->p == 0 && p->a == 0 && p->h == 0 && p->g == 0 && auto_size(p, n_ep) < 0) {
		*bad_key = "cluster.gpus";
		return err_set(e, ERR_USAGE, "%d endpoints exceed any balanced "
			       "dragonfly up to h = 64", n_ep);
	}
	if (p->p < 1 || p->a < 1 || p->h < 1) {
		*bad_key = p->p < 1 ? "network.dragonfly.p" :
			   p->a < 1 ? "network.dragonfly.a" : "network.dragonfly.h";
		return err_set(e, ERR_USAGE, "p, a and h must all be at least 1 "
			       "(or all of p, a, h, g 0 for a balanced dragonfly)");
	}
	if (p->g == 0)
		p->g = (int)(((int64_t)n_ep + (int64_t)p->a * p->p - 1) /
			     ((int64_t)p->a * p->p));
	if ((int64_t)p->g > (int64_t)p->a * p->h + 1) {
		*bad_key = "network.dragonfly.g";
		return err_set(e, ERR_USAGE, "%d groups cannot all be joined: each "
			       "group has a*h = %d global links (expected g <= a*h+1 = %d)",
			       p->g, p->a * p->h, p->a * p->h + 1);
	}
	if ((int64_t)p->g * p->a * p->p < n_ep) {
		*bad_key = "cluster.gpus";
		return err_set(e, ERR_USAGE, "%d endpoints but the dragonfly has only "
			       "%lld terminal ports (p*a*g = %d*%d*%d)", n_ep,
			       (long long)p->g * p->a * p->p, p->p, p->a, p->g);
	}
	return 0;
}

static struct df *df_fail(struct df *df)
{
	df_free(df);
	return NULL;
}

static int add_globals(struct df *df, struct graph *g, int32_t r0, double bw,
		       int32_t lat, struct err *e)
{
	int ah = df->a * df->h, gm1 = df->g - 1;

	for (int G = 0; G < df->g; G++)
		for (int c = 0; c < df->copies * gm1; c++) {
			int k = c / gm1, off = c % gm1;
			int T = chan_target(df, G, off);
			int cp = k * gm1 + chan_offset(df, T, G);
			if (T < G)
				continue;	/* added from the other side */
			int32_t l = graph_add_duplex(g, r0 + G * df->a + c / df->h,
						     r0 + T * df->a + cp / df->h,
						     bw, lat, TIER_GLOBAL, e);
			if (l < 0)
				return -1;
			df->global[(int64_t)G * ah + c] = l;
			df->global[(int64_t)T * ah + cp] = l ^ 1;
		}
	return 0;
}

struct df *df_build(struct graph *g, const struct df_params *p_in, int n_ep,
		    const int32_t *ep_node, const struct link_spec *link,
		    const char **bad_key, struct err *e)
{
	struct df_params p = *p_in;
	struct df *df;

	if (check_params(&p, n_ep, bad_key, e) < 0)
		return NULL;
	df = calloc(1, sizeof *df);
	if (df == NULL) {
		err_set(e, ERR_RUN, "out of memory for the dragonfly");
		return NULL;
	}
	df->p = p.p;
	df->a = p.a;
	df->h = p.h;
	df->g = p.g;
	df->arrangement = p.arrangement;
	df->routing = p.routing;
	df->n_ep = n_ep;
	df->copies = df->g > 1 ? df->a * df->h / (df->g - 1) : 0;
	int64_t ah = (int64_t)df->a * df->h;
	df->global = malloc(sizeof *df->global * (size_t)(ah * df->g));
	if (df->global == NULL) {
		err_set(e, ERR_RUN, "out of memory for the dragonfly");
		return df_fail(df);
	}
	for (int64_t i = 0; i < ah * df->g; i++)
		df->global[i] = -1;

	int32_t r0 = graph_add_nodes(g, NODE_SWITCH, df->a * df->g, e);
	int64_t n_links = n_ep + (int64_t)df->g * df->a * (df->a - 1) / 2 +
			  (int64_t)df->g * df->copies * (df->g - 1) / 2;
	if (r0 < 0 || n_links > INT32_MAX / 2 ||
	    graph_reserve_links(g, 2 * (int32_t)n_links, e) < 0)
		return df_fail(df);
	double bw = link->bw_Bps * link->efficiency;
	int32_t lat = (int32_t)link->latency_ns;
	df->term_link0 = g->n_links;
	for (int i = 0; i < n_ep; i++)
		if (graph_add_duplex(g, ep_node[i], r0 + i / df->p, bw, lat,
				     TIER_TERMINAL, e) < 0)
			return df_fail(df);
	df->local_link0 = g->n_links;
	for (int G = 0; G < df->g; G++)
		for (int i = 0; i < df->a; i++)
			for (int j = i + 1; j < df->a; j++)
				if (graph_add_duplex(g, r0 + G * df->a + i, r0 + G * df->a + j,
						     bw, lat, TIER_LOCAL, e) < 0)
					return df_fail(df);
	if (add_globals(df, g, r0, bw, lat, e) < 0)
		return df_fail(df);
	return df;
}

void df_free(struct df *df)
{
	if (df == NULL)
		return;
	free(df->global);
	free(df);
}

/* Router rs to group T (!= its own): local hop to the gateway, the global
 * link; returns the router reached in T. */
static int32_t to_group(const struct df *df, int32_t rs, int T, uint64_t spread,
			int32_t *out, int *n)
{
	int a = df->a, gm1 = df->g - 1, G = rs / a;
	int k = (int)(spread % (uint64_t)df->copies);
	int c = k * gm1 + chan_offset(df, G, T);
	int cp = k * gm1 + chan_offset(df, T, G);
	int32_t gw = G * a + c / df->h;

	if (gw != rs)
		out[(*n)++] = local_link(df, rs, gw);
	out[(*n)++] = df->global[(int64_t)G * a * df->h + c];
	return T * a + cp / df->h;
}

static void min_route(const struct df *df, int32_t rs, int32_t rd, uint64_t h,
		      int32_t *out, int *n)
{
	if (rs / df->a != rd / df->a)
		rs = to_group(df, rs, rd / df->a, h, out, n);
	if (rs != rd)
		out[(*n)++] = local_link(df, rs, rd);
}

static void valiant_route(const struct df *df, int32_t rs, int32_t rd,
			  uint64_t spread, uint64_t hs, int32_t *out, int *n)
{
	int Gs = rs / df->a, Gd = rd / df->a;
	int lo = Gs < Gd ? Gs : Gd, hi = Gs < Gd ? Gd : Gs;
	/* One of the g-2 other groups.  Packet-level Valiant draws per packet,
	 * which loads every intermediate group equally on average; a flow is
	 * many packets, so the draw here is a deterministic spread over the
	 * groups (by source, destination and channel) with that same balance,
	 * instead of one random draw per flow whose collisions would make
	 * Valiant look worse than it is. */
	int Gi = (int)(spread % (uint64_t)(df->g - 2));

	if (Gi >= lo)
		Gi++;
	if (Gi >= hi)
		Gi++;
	int32_t ri = to_group(df, rs, Gi, hs, out, n);
	min_route(df, ri, rd, hs, out, n);
}

static double path_load(const int32_t *path, int n, const int32_t *load,
			const double *cap_Bps)
{
	double worst = 0;

	for (int i = 0; i < n; i++) {
		double x = (load[path[i]] + 1) / cap_Bps[path[i]];
		if (x > worst)
			worst = x;
	}
	return worst * n;
}

int df_route(const struct df *df, int32_t es, int32_t ed, uint64_t key,
	     const int32_t *load, const double *cap_Bps, int32_t *out)
{
	int32_t rs = es / df->p, rd = ed / df->p;
	/* Parallel global links by source, Valiant's groups by source and
	 * destination: spread, see above. */
	uint64_t h = (uint64_t)es + key, hv = h + (uint64_t)ed;
	int n = 0;

	out[n++] = df->term_link0 + 2 * es;
	bool inter = rs / df->a != rd / df->a && df->g > 2;
	/* UGAL without load information sees an idle network: minimal. */
	if (!inter || df->routing == DF_MINIMAL || (df->routing == DF_UGAL && !load)) {
		min_route(df, rs, rd, h, out, &n);
	} else if (df->routing == DF_VALIANT) {
		valiant_route(df, rs, rd, hv, h, out, &n);
	} else {
		int32_t mp[NET_PATH_MAX], vp[NET_PATH_MAX];
		int nm = 0, nv = 0;
		min_route(df, rs, rd, h, mp, &nm);
		valiant_route(df, rs, rd, hv, h, vp, &nv);
		bool use_min = path_load(mp, nm, load, cap_Bps) <=
			       path_load(vp, nv, load, cap_Bps);
		const int32_t *src = use_min ? mp : vp;
		for (int i = 0; i < (use_min ? nm : nv); i++)
			out[n++] = src[i];
	}
	out[n++] = (df->term_link0 + 2 * ed) ^ 1;
	return n;
}
