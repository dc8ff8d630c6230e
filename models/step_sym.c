/*
 * step_sym.c -- may the step model simulate the DP groups of one TP rank
 * per pipeline stage instead of all tp of them, or time DP collectives
 * alone?
 *
 * The tp data-parallel groups of a stage (TP rank i of every replica) start
 * identical collectives at the same instant.  Suppose the route of each
 * transfer of rank i's collectives is the route of its twin in rank 0's,
 * hop by hop, with every link renamed to one of rank i's own (always the
 * same one, of the same capacity), and no link is used by two ranks.  Then
 * swapping rank 0's flows and links with rank i's maps the flow system
 * onto itself, and the max-min fair rates, which are unique, give a flow
 * and its twin the same rate: rank 0's groups alone on the netsim see
 * exactly the contention they see among all, with 1/tp of the flows (the
 * caller scales tier bytes back).  This holds on a rail-optimised fat tree
 * where each rail has leaves and uplinks of its own; it fails where a
 * scalable unit's rails are split over two pods (radix 40, 1024 GPUs), or
 * where rails meet on a leaf or at the core.  (Rails that met on links
 * every rank uses alike could be reduced too, at 1/tp of those links'
 * capacity; none of the fabric builders makes such a fabric, so that case
 * is not taken.)
 *
 * The check routes every transfer of every algorithm a group may run over
 * the channels the collectives use: for all-reduce ring, NCCL's trees and
 * hierarchical (the tuner may pick any); for the reduce-scatters and
 * all-gathers of sharded data parallelism (ZeRO, the distributed
 * optimizer), which are always rings, rings alone.  (With rings leaving
 * each node by the NIC they came in by, coll.c, a rank's rings keep to its
 * own rails even where a scalable unit straddles two pods; the trees' and
 * hierarchical rings' routes there do not pair up.)  When
 * moreover no link is used by two groups at all, each collective takes its
 * time alone on the fabric and the netsim is not needed.  Dragonflies route
 * adaptively (by load), so no shortcut is taken there.
 */
#include <stdlib.h>
#include <string.h>

#include "models/step.h"
#include "topologies/coll.h"
#include "topologies/topo.h"

/* The links of a group's transfers, route after route, in plan order. */
struct routes {
	int32_t *link, *len;
	size_t n_link, cap_link;
	int32_t n_xfer, cap_xfer;
};

static int routes_push(struct routes *r, const int32_t *path, int n)
{
	if (r->n_xfer == r->cap_xfer) {
		int32_t cap = r->cap_xfer ? 2 * r->cap_xfer : 256;
		int32_t *len = realloc(r->len, (size_t)cap * sizeof *len);
		if (!len)
			return -1;
		r->len = len;
		r->cap_xfer = cap;
	}
	if (r->n_link + (size_t)n > r->cap_link) {
		size_t cap = r->cap_link ? 2 * r->cap_link : 1024;
		while (cap < r->n_link + (size_t)n)
			cap *= 2;
		int32_t *link = realloc(r->link, cap * sizeof *link);
		if (!link)
			return -1;
		r->link = link;
		r->cap_link = cap;
	}
	memcpy(r->link + r->n_link, path, (size_t)n * sizeof *path);
	r->n_link += (size_t)n;
	r->len[r->n_xfer++] = n;
	return 0;
}

/* Every transfer of every algorithm the group may run.  One the group
 * cannot run (hierarchical over unequal nodes) is left out: the run
 * refuses it too. */
static int group_routes(struct net *net, const int *gpus, int n, bool rings_only,
			struct routes *r, struct err *e)
{
	static const enum coll_algo algos[] = { COLL_RING, COLL_TREE, COLL_HIER };
	size_t n_algos = rings_only ? 1 : sizeof algos / sizeof *algos;
	int32_t path[NET_PATH_MAX];

	r->n_link = 0;
	r->n_xfer = 0;
	for (size_t a = 0; a < n_algos; a++) {
		struct coll c = { COLL_ALL_REDUCE, algos[a], gpus, n, 1.0, 0 };
		struct coll_plan p;
		struct err scratch = { 0 };

		if (coll_plan_build(net, &c, algos[a], &p, &scratch) < 0)
			continue;
		for (int ph = 0; ph < p.n_phases; ph++)
			for (int32_t i = 0; i < p.ph[ph].n; i++) {
				const struct coll_xfer *x = &p.ph[ph].x[i];
				int len = coll_xfer_route(net, x, NULL, path);
				if (routes_push(r, path, len) < 0) {
					coll_plan_free(&p);
					return err_set(e, ERR_RUN, "step: out of memory");
				}
			}
		coll_plan_free(&p);
	}
	return 0;
}

/* Record that group g uses the links of r; note a second group on one.
 * owner holds g + 1 (0: no group yet), so a calloc'd array serves. */
static void claim(int32_t *owner, const struct routes *r, int g, bool *all_disjoint)
{
	for (size_t h = 0; h < r->n_link; h++) {
		int32_t l = r->link[h];
		if (owner[l] == 0)
			owner[l] = g + 1;
		else if (owner[l] != g + 1)
			*all_disjoint = false;
	}
}

/*
 * Each rank's renaming of rank 0's links, kept sparse: the links the
 * fabric has (100,000 and more) are far more than the DP routes use, and
 * writing whole arrays of them cost more than the routing (the bench's
 * page faults).  Rank 0's links are numbered as they appear (slot, dense
 * by link, 0: not one of them); img[i][s] is rank i's image of rank 0's
 * link number s; inv_rank / inv_link give, for a link, the rank whose
 * image it is and of which rank-0 link (plus one; 0: none).  The dense
 * arrays come from calloc, whose untouched pages cost nothing.
 */
struct renaming {
	int tp;
	int32_t *slot, *inv_rank, *inv_link;
	int32_t *dom;		/* rank 0's links by number */
	int32_t **img;		/* [tp][cap]: rank i's image, -1 none yet */
	int32_t n_dom, cap;
};

static int renaming_init(struct renaming *rn, int tp, int32_t n_links)
{
	memset(rn, 0, sizeof *rn);
	rn->tp = tp;
	rn->slot = calloc((size_t)n_links, sizeof *rn->slot);
	rn->inv_rank = calloc((size_t)n_links, sizeof *rn->inv_rank);
	rn->inv_link = calloc((size_t)n_links, sizeof *rn->inv_link);
	rn->img = calloc((size_t)tp, sizeof *rn->img);
	return rn->slot && rn->inv_rank && rn->inv_link && rn->img ? 0 : -1;
}

static void renaming_free(struct renaming *rn)
{
	for (int i = 0; rn->img && i < rn->tp; i++)
		free(rn->img[i]);
	free(rn->img);
	free(rn->dom);
	free(rn->slot);
	free(rn->inv_rank);
	free(rn->inv_link);
}

/* The number of rank 0's link a, numbering it if new; -1 out of memory. */
static int32_t renaming_slot(struct renaming *rn, int32_t a)
{
	if (rn->slot[a] > 0)
		return rn->slot[a] - 1;
	if (rn->n_dom == rn->cap) {
		int32_t cap = rn->cap ? 2 * rn->cap : 1024;
		int32_t *dom = realloc(rn->dom, (size_t)cap * sizeof *dom);
		if (!dom)
			return -1;
		rn->dom = dom;
		for (int i = 1; i < rn->tp; i++) {
			int32_t *img = realloc(rn->img[i], (size_t)cap * sizeof *img);
			if (!img)
				return -1;
			memset(img + rn->cap, 0xff, (size_t)(cap - rn->cap) * sizeof *img);
			rn->img[i] = img;
		}
		rn->cap = cap;
	}
	rn->dom[rn->n_dom] = a;
	rn->slot[a] = ++rn->n_dom;
	return rn->n_dom - 1;
}

/* Are rank i's routes ri rank 0's r0 with links renamed consistently,
 * between links of equal capacity, onto links no other rank's renaming
 * took?  (A link taken twice would fail the apartness below anyway.)
 * 1 yes, 0 no, -1 out of memory. */
static int twins(const struct routes *r0, const struct routes *ri, int i,
		 struct renaming *rn, const double *cap)
{
	if (r0->n_xfer != ri->n_xfer || r0->n_link != ri->n_link)
		return 0;
	for (int32_t x = 0; x < r0->n_xfer; x++)
		if (r0->len[x] != ri->len[x])
			return 0;
	for (size_t h = 0; h < r0->n_link; h++) {
		int32_t a = r0->link[h], b = ri->link[h], s = renaming_slot(rn, a);
		if (s < 0)
			return -1;
		int32_t m = rn->img[i][s];
		if ((m != -1 && m != b) || cap[a] != cap[b] ||
		    (rn->inv_rank[b] != 0 &&
		     (rn->inv_rank[b] != i + 1 || rn->inv_link[b] != a + 1)))
			return 0;
		rn->img[i][s] = b;
		rn->inv_rank[b] = i + 1;
		rn->inv_link[b] = a + 1;
	}
	return 1;
}

/* Given each rank's renaming, does every link belong to one rank only?
 * The images of different ranks are apart already (twins); left: no
 * image is one of rank 0's own links. */
static bool apart(const struct renaming *rn)
{
	for (int i = 1; i < rn->tp; i++)
		for (int32_t s = 0; s < rn->n_dom; s++) {
			int32_t b = rn->img[i][s];
			if (b == -1 || rn->slot[b] != 0)
				return false;
		}
	return true;
}

int step_dp_symmetry(struct net *net, const int *rank_gpu, int tp, int pp, int dp,
		     bool rings_only, struct step_sym *sym, struct err *e)
{
	int32_t n_links = net->g.n_links;
	struct routes r0 = { 0 }, ri = { 0 };
	struct renaming rn = { 0 };
	int32_t *owner = NULL;
	int *gpus = NULL;
	bool twinned = tp > 1;
	int rc = -1;

	memset(sym, 0, sizeof *sym);
	if (dp <= 1 || net->df || !net->ft)
		return 0;
	owner = calloc((size_t)n_links, sizeof *owner);
	gpus = malloc((size_t)dp * sizeof *gpus);
	if (!owner || !gpus || renaming_init(&rn, tp, n_links) < 0)
		goto oom;
	sym->all_disjoint = true;
	for (int k = 0; k < pp; k++)
		for (int i = 0; i < tp; i++) {
			struct routes *r = i == 0 ? &r0 : &ri;
			for (int j = 0; j < dp; j++)
				gpus[j] = rank_gpu[i + tp * (j + dp * k)];
			if (group_routes(net, gpus, dp, rings_only, r, e) < 0)
				goto out;
			claim(owner, r, k * tp + i, &sym->all_disjoint);
			if (i > 0 && twinned) {
				int t = twins(&r0, r, i, &rn, net->g.bw_Bps);
				if (t < 0)
					goto oom;
				twinned = t == 1;
			}
		}
	sym->rails_symmetric = twinned && apart(&rn);
	rc = 0;
	goto out;
oom:
	err_set(e, ERR_RUN, "step: out of memory");
out:
	renaming_free(&rn);
	free(owner);
	free(gpus);
	free(r0.link);
	free(r0.len);
	free(ri.link);
	free(ri.len);
	return rc;
}
