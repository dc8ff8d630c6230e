/*
 * flow.c -- max-min fair flow rates by progressive filling, solved per
 * connected component, with flows ending and delivered in time order.
 * See flow.h for the model.
 *
 * Data: each link keeps an array of its flows, each entry with the flow's
 * generation; a flow that ends leaves its entries behind, and the next solve,
 * which walks the arrays of every link the flow touched, drops them (so an
 * ending flow touches no other flow).  Two indexed binary heaps: flows by next event time (transfer end, then
 * delivery), and, during a solve, the component's links by fair share.
 * While filling, a link's fair share only grows (a flow frozen at the
 * minimum share s leaves rem - s over n - 1 >= rem/n), so a link moves
 * only down the heap.  Links that cannot fill up stay out of it
 * (bound_links).  A phase's flows tend to end at one instant: when many
 * entries are due at once they leave the time heap in a batch, sorted,
 * and the rest is rebuilt (take_due), in the same order as one by one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/flow.h"
#include "topologies/topo.h"

enum { FLOW_FREE, FLOW_SEND, FLOW_DRAIN };

struct flow {
	double left;		/* bytes not yet sent at t_last */
	double bytes, rate;
	double max_Bps;		/* the flow's own ceiling (0: none) */
	int64_t t_last, key_ns, lat_ns;
	uint64_t seq, owner;
	uint32_t stamp;
	uint8_t n, state;
	uint32_t gen;		/* bumped when the id is reused */
	int32_t w;		/* identical flows it stands for (flow_grow) */
	int32_t path[NET_PATH_MAX];
};

struct lf_ent {
	int32_t id;
	uint32_t gen;
};

struct t_ent {
	int64_t key_ns;
	uint64_t seq;
	int32_t id;
};

struct flow_sys {
	int32_t n_links;
	const double *cap;
	const uint8_t *tier;
	int n_tiers;
	struct lf_ent **lf;		/* flows on each link, some ended */
	int32_t *lf_n, *lf_cap;		/* entries in use, room */
	int32_t *lf_live;		/* flows still sending on each link (weighted) */
	double *link_bytes, tier_bytes[TIER_COUNT];
	struct flow *f;
	int32_t n_f, cap_f, *free_ids, n_free;
	struct t_ent *th;		/* time heap */
	int32_t n_th, *hpos;		/* its size; each flow's place in it */
	struct t_ent *due;		/* flow_advance's batch, and its room */
	int32_t *due_at, cap_due;
	uint64_t seq;
	size_t live;
	int32_t *dirty, n_dirty;	/* links changed since the last solve */
	uint8_t *is_dirty;
	uint32_t *link_stamp, stamp;
	double *rem, *share;		/* solve scratch, per link */
	double *bound;			/* the most a link's flows could take */
	int32_t *unfrozen, *lh_pos, *lh, n_lh;
	int32_t *comp_l, *comp_f, *capped;
	int32_t n_solved;		/* comp_f's flows, rated by the last solve */
	uint8_t *frozen;		/* by flow id: kept apart, it is hot */
	uint64_t rated;
};

/* --- binary heaps ---------------------------------------------------------- */
/* Both heaps below (timers by key, links by fair share) sift the same way;
 * they differ in entry type, order and how a slot is recorded, given as
 * LESS(a, b) and SET(slot, entry).  Macros, not callbacks: this is the
 * flow model's inner loop. */
#define HEAP_UP(h, i, x, LESS, SET) do {				\
		while ((i) > 0 && LESS((x), (h)[((i) - 1) / 2])) {	\
			SET((i), (h)[((i) - 1) / 2]);			\
			(i) = ((i) - 1) / 2;				\
		}							\
		SET((i), (x));						\
	} while (0)

#define HEAP_DOWN(h, n, i, x, LESS, SET) do {				\
		for (;;) {						\
			int32_t c_ = 2 * (i) + 1;			\
			if (c_ >= (n))					\
				break;					\
			if (c_ + 1 < (n) && LESS((h)[c_ + 1], (h)[c_]))	\
				c_++;					\
			if (!LESS((h)[c_], (x)))			\
				break;					\
			SET((i), (h)[c_]);				\
			(i) = c_;					\
		}							\
		SET((i), (x));						\
	} while (0)

/* --- the time heap --------------------------------------------------------- */
/* Entries carry their keys, so that sifting reads one small array and not
 * the flows; a flow's place in it is kept apart (hpos) for the same reason. */

static int t_less(const struct t_ent *x, const struct t_ent *y)
{
	return x->key_ns < y->key_ns || (x->key_ns == y->key_ns && x->seq < y->seq);
}

static void t_set(struct flow_sys *fs, int32_t i, struct t_ent x)
{
	fs->th[i] = x;
	fs->hpos[x.id] = i;
}

#define T_LESS(a, b) t_less(&(a), &(b))
#define T_SET(i, x) t_set(fs, (i), (x))

static void t_up(struct flow_sys *fs, int32_t i)
{
	struct t_ent x = fs->th[i];

	HEAP_UP(fs->th, i, x, T_LESS, T_SET);
}

static void t_down(struct flow_sys *fs, int32_t i)
{
	struct t_ent x = fs->th[i];

	HEAP_DOWN(fs->th, fs->n_th, i, x, T_LESS, T_SET);
}

/* The flow's key changed: its entry takes it and moves. */
static void t_update(struct flow_sys *fs, int32_t id)
{
	int32_t i = fs->hpos[id];

	fs->th[i].key_ns = fs->f[id].key_ns;
	t_up(fs, i);
	t_down(fs, fs->hpos[id]);
}

static void t_remove(struct flow_sys *fs, int32_t id)
{
	int32_t i = fs->hpos[id];
	struct t_ent last = fs->th[--fs->n_th];

	fs->hpos[id] = -1;
	if (i == fs->n_th)
		return;
	t_set(fs, i, last);
	t_up(fs, i);
	t_down(fs, fs->hpos[last.id]);
}

/* After many keys changed at once: rebuild in linear time. */
static void t_heapify(struct flow_sys *fs)
{
	for (int32_t i = 0; i < fs->n_th; i++)
		fs->th[i].key_ns = fs->f[fs->th[i].id].key_ns;
	for (int32_t i = fs->n_th / 2; i-- > 0;)
		t_down(fs, i);
}

static void t_push(struct flow_sys *fs, int32_t id)
{
	const struct flow *f = &fs->f[id];

	t_set(fs, fs->n_th, (struct t_ent){ f->key_ns, f->seq, id });
	t_up(fs, fs->n_th++);
}

/* Sort entries by (key, seq): quicksort on the middle of three, small
 * parts by insertion.  (qsort's indirect compares cost more than the heap
 * work this replaces.) */
static void t_sort(struct t_ent *a, int32_t n)
{
	while (n > 16) {
		struct t_ent *m = &a[n / 2], *z = &a[n - 1], pivot, tmp;
		if (t_less(m, a)) { tmp = *m; *m = *a; *a = tmp; }
		if (t_less(z, m)) { tmp = *z; *z = *m; *m = tmp; }
		if (t_less(m, a)) { tmp = *m; *m = *a; *a = tmp; }
		pivot = *m;
		int32_t i = 0, j = n - 1;
		for (;;) {
			while (t_less(&a[i], &pivot))
				i++;
			while (t_less(&pivot, &a[j]))
				j--;
			if (i >= j)
				break;
			tmp = a[i];
			a[i++] = a[j];
			a[j--] = tmp;
		}
		/* the smaller part by recursion, the larger by the loop */
		if (j + 1 < n - (j + 1)) {
			t_sort(a, j + 1);
			a += j + 1;
			n -= j + 1;
		} else {
			t_sort(a + j + 1, n - (j + 1));
			n = j + 1;
		}
	}
	for (int32_t i = 1; i < n; i++) {
		struct t_ent x = a[i];
		int32_t j = i;
		for (; j > 0 && t_less(&x, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/* --- the link heap (fair shares during a solve) --------------------------- */

static int l_less(const struct flow_sys *fs, int32_t a, int32_t b)
{
	return fs->share[a] < fs->share[b] || (fs->share[a] == fs->share[b] && a < b);
}

static void l_set(struct flow_sys *fs, int32_t i, int32_t l)
{
	fs->lh[i] = l;
	fs->lh_pos[l] = i;
}

#define L_LESS(a, b) l_less(fs, (a), (b))
#define L_SET(i, l) l_set(fs, (i), (l))

static void l_down(struct flow_sys *fs, int32_t i)
{
	int32_t l = fs->lh[i];

	HEAP_DOWN(fs->lh, fs->n_lh, i, l, L_LESS, L_SET);
}

static void l_up(struct flow_sys *fs, int32_t i)
{
	int32_t l = fs->lh[i];

	HEAP_UP(fs->lh, i, l, L_LESS, L_SET);
}

static void l_remove(struct flow_sys *fs, int32_t l)
{
	int32_t i = fs->lh_pos[l], last = fs->lh[--fs->n_lh];

	fs->lh_pos[l] = -1;
	if (i == fs->n_lh)
		return;
	l_set(fs, i, last);
	l_up(fs, i);
	l_down(fs, fs->lh_pos[last]);
}

/* --- building and freeing ------------------------------------------------- */

struct flow_sys *flow_sys_new(int32_t n_links, const double *cap_Bps,
			      const uint8_t *tier, int n_tiers, struct err *e)
{
	struct flow_sys *fs = calloc(1, sizeof *fs);
	size_t n = (size_t)(n_links > 0 ? n_links : 1);

	if (fs == NULL)
		goto oom;
	fs->n_links = n_links;
	fs->cap = cap_Bps;
	fs->tier = tier;
	fs->n_tiers = n_tiers < TIER_COUNT ? n_tiers : TIER_COUNT;
	fs->lf = calloc(n, sizeof *fs->lf);
	fs->lf_n = calloc(n, sizeof *fs->lf_n);
	fs->lf_cap = calloc(n, sizeof *fs->lf_cap);
	fs->lf_live = calloc(n, sizeof *fs->lf_live);
	fs->link_bytes = calloc(n, sizeof *fs->link_bytes);
	fs->dirty = malloc(n * sizeof *fs->dirty);
	fs->is_dirty = calloc(n, 1);
	fs->link_stamp = calloc(n, sizeof *fs->link_stamp);
	fs->rem = malloc(n * sizeof *fs->rem);
	fs->share = malloc(n * sizeof *fs->share);
	fs->bound = malloc(n * sizeof *fs->bound);
	fs->unfrozen = malloc(n * sizeof *fs->unfrozen);
	fs->lh_pos = malloc(n * sizeof *fs->lh_pos);
	fs->lh = malloc(n * sizeof *fs->lh);
	fs->comp_l = malloc(n * sizeof *fs->comp_l);
	if (!fs->lf || !fs->lf_n || !fs->lf_cap || !fs->lf_live || !fs->link_bytes ||
	    !fs->dirty ||
	    !fs->is_dirty || !fs->link_stamp || !fs->rem || !fs->share || !fs->bound ||
	    !fs->unfrozen || !fs->lh_pos || !fs->lh || !fs->comp_l)
		goto oom;
	return fs;
oom:
	flow_sys_free(fs);
	err_set(e, ERR_RUN, "out of memory for the flow model");
	return NULL;
}

void flow_sys_free(struct flow_sys *fs)
{
	if (fs == NULL)
		return;
	if (fs->lf)
		for (int32_t l = 0; l < fs->n_links; l++)
			free(fs->lf[l]);
	void *arrays[] = {
		fs->lf, fs->lf_n, fs->lf_cap, fs->lf_live, fs->link_bytes, fs->f,
		fs->free_ids, fs->th, fs->hpos, fs->due, fs->due_at, fs->dirty,
		fs->is_dirty, fs->link_stamp, fs->rem, fs->share, fs->bound,
		fs->unfrozen, fs->lh_pos, fs->lh, fs->comp_l, fs->comp_f, fs->capped,
		fs->frozen, fs,
	};
	for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
		free(arrays[i]);
}

static void mark_dirty(struct flow_sys *fs, int32_t l)
{
	if (!fs->is_dirty[l]) {
		fs->is_dirty[l] = 1;
		fs->dirty[fs->n_dirty++] = l;
	}
}

static int32_t new_flow_id(struct flow_sys *fs, struct err *e)
{
	if (fs->n_free > 0)
		return fs->free_ids[--fs->n_free];
	if (fs->n_f == fs->cap_f) {
		int32_t cap = fs->cap_f ? fs->cap_f * 2 : 256;
		struct flow *f = realloc(fs->f, sizeof *f * (size_t)cap);
		int32_t *fr = realloc(fs->free_ids, sizeof *fr * (size_t)cap);
		struct t_ent *th = realloc(fs->th, sizeof *th * (size_t)cap);
		int32_t *hp = realloc(fs->hpos, sizeof *hp * (size_t)cap);
		if (hp)
			fs->hpos = hp;
		int32_t *cf = realloc(fs->comp_f, sizeof *cf * (size_t)cap);
		int32_t *cc = realloc(fs->capped, sizeof *cc * (size_t)cap);
		uint8_t *fz = realloc(fs->frozen, (size_t)cap);
		if (cc)
			fs->capped = cc;
		if (fz)
			fs->frozen = fz;
		if (f)
			fs->f = f;
		if (fr)
			fs->free_ids = fr;
		if (th)
			fs->th = th;
		if (cf)
			fs->comp_f = cf;
		if (!f || !fr || !th || !hp || !cf || !cc || !fz)
			return err_set(e, ERR_RUN, "out of memory for flows");
		fs->cap_f = cap;
	}
	fs->f[fs->n_f].gen = 0;
	return fs->n_f++;
}

static int link_push(struct flow_sys *fs, int32_t l, int32_t id, struct err *e)
{
	if (fs->lf_n[l] == fs->lf_cap[l]) {
		int32_t cap = fs->lf_cap[l] ? fs->lf_cap[l] * 2 : 4;
		struct lf_ent *a = realloc(fs->lf[l], sizeof *a * (size_t)cap);
		if (a == NULL)
			return err_set(e, ERR_RUN, "out of memory for flows");
		fs->lf[l] = a;
		fs->lf_cap[l] = cap;
	}
	fs->lf[l][fs->lf_n[l]++] = (struct lf_ent){ id, fs->f[id].gen };
	fs->lf_live[l]++;
	return 0;
}

int32_t flow_add(struct flow_sys *fs, const int32_t *path, int n, double bytes,
		 int64_t latency_ns, uint64_t owner, int64_t now_ns, struct err *e)
{
	if (n < 0 || n > NET_PATH_MAX || !(bytes >= 0) || latency_ns < 0)
		return err_set(e, ERR_RUN, "bad flow (%d links, %g bytes)", n, bytes);
	int32_t id = new_flow_id(fs, e);
	if (id < 0)
		return -1;
	struct flow *f = &fs->f[id];
	uint32_t gen = f->gen + 1;	/* (new ids: whatever was there) */
	memset(f, 0, sizeof *f);
	f->gen = gen;
	f->w = 1;
	f->left = f->bytes = bytes;
	f->t_last = now_ns;
	f->lat_ns = latency_ns;
	f->seq = fs->seq++;
	f->owner = owner;
	f->state = FLOW_SEND;
	/* A flow with nothing to send (or no links) ends its transfer now. */
	f->key_ns = (bytes > 0 && n > 0) ? INT64_MAX : now_ns;
	f->n = (uint8_t)((bytes > 0) ? n : 0);
	for (int i = 0; i < f->n; i++) {
		if (link_push(fs, path[i], id, e) < 0)
			return -1;	/* the flow is half-attached: fs is unusable */
		f->path[i] = path[i];
		mark_dirty(fs, path[i]);
	}
	fs->th[fs->n_th] = (struct t_ent){ f->key_ns, f->seq, id };
	fs->hpos[id] = fs->n_th++;
	t_up(fs, fs->hpos[id]);
	fs->live++;
	return id;
}

/* --- solving -------------------------------------------------------------- */

/* The flows and links connected to the dirty links. */
static void collect(struct flow_sys *fs, int32_t *n_l, int32_t *n_f)
{
	uint32_t s = ++fs->stamp;
	int32_t nl = 0, nf = 0, head = 0;

	for (int32_t i = 0; i < fs->n_dirty; i++) {
		int32_t l = fs->dirty[i];
		fs->is_dirty[l] = 0;
		if (fs->link_stamp[l] != s) {
			fs->link_stamp[l] = s;
			fs->comp_l[nl++] = l;
		}
	}
	fs->n_dirty = 0;
	while (head < nl) {
		int32_t l = fs->comp_l[head++];
		int32_t kept = 0;
		for (int32_t k = 0; k < fs->lf_n[l]; k++) {
			struct lf_ent x = fs->lf[l][k];
			struct flow *f = &fs->f[x.id];
			if (f->gen != x.gen || f->state != FLOW_SEND)
				continue;	/* ended: drop the entry */
			fs->lf[l][kept++] = x;
			if (f->stamp == s)
				continue;
			f->stamp = s;
			fs->comp_f[nf++] = x.id;
			for (int h = 0; h < f->n; h++)
				if (fs->link_stamp[f->path[h]] != s) {
					fs->link_stamp[f->path[h]] = s;
					fs->comp_l[nl++] = f->path[h];
				}
		}
		fs->lf_n[l] = kept;
	}
	*n_l = nl;
	*n_f = nf;
}

/* Freeze flow id at share s (w s for a flow standing for w): take that
 * from its other links still filling. */
static void freeze(struct flow_sys *fs, int32_t id, double s, int32_t skip)
{
	struct flow *f = &fs->f[id];
	double rate = f->w == 1 ? s : f->w * s;

	fs->frozen[id] = 1;
	f->rate = rate;
	for (int h = 0; h < f->n; h++) {
		int32_t m = f->path[h];
		if (m == skip || fs->lh_pos[m] < 0)
			continue;
		double r = fs->rem[m] - rate;
		fs->rem[m] = r > 0 ? r : 0;
		if ((fs->unfrozen[m] -= f->w) == 0) {
			l_remove(fs, m);
		} else {
			fs->share[m] = fs->rem[m] / fs->unfrozen[m];
			l_down(fs, fs->lh_pos[m]);
		}
	}
}

static const struct flow_sys *sort_fs;	/* qsort has no context argument */

static int by_cap(const void *a, const void *b)
{
	double x = sort_fs->f[*(const int32_t *)a].max_Bps;
	double y = sort_fs->f[*(const int32_t *)b].max_Bps;

	if (x != y)
		return x < y ? -1 : 1;
	return (*(const int32_t *)a > *(const int32_t *)b) -
	       (*(const int32_t *)a < *(const int32_t *)b);
}

/* Links that cannot fill up.  A flow never gets more than any link of its
 * path holds (it freezes at the least share, and every share is at most
 * what is left of its link), nor more than its ceiling; a flow standing
 * for w shares the w parts' links, so its whole rate is bounded alike.  A
 * link whose capacity exceeds the sum of those bounds over its flows can
 * never be the least share with a flow still filling (it would then be
 * full), so progressive filling never picks it: it stays out of the heap,
 * and no rate changes.  These are most PCIe and NVLink hops of flows
 * that cross the fabric, and the fabric's lightly loaded links: about
 * half the links of a ZeRO-3 step's solves. */
static void bound_links(struct flow_sys *fs, int32_t nl, int32_t nf)
{
	for (int32_t i = 0; i < nl; i++)
		fs->bound[fs->comp_l[i]] = 0;
	for (int32_t i = 0; i < nf; i++) {
		const struct flow *f = &fs->f[fs->comp_f[i]];
		double b = f->max_Bps > 0 ? f->w * f->max_Bps : INFINITY;
		for (int h = 0; h < f->n; h++)
			b = fmin(b, fs->cap[f->path[h]]);
		for (int h = 0; h < f->n; h++)
			fs->bound[f->path[h]] += b;
	}
}

/* Progressive filling.  A flow with its own ceiling behaves as if it had
 * a private link of that capacity: it freezes at its ceiling as soon as
 * the smallest link share exceeds it. */
static void fill(struct flow_sys *fs, int32_t nl, int32_t nc)
{
	int32_t ci = 0;

	fs->n_lh = 0;
	for (int32_t i = 0; i < nl; i++) {
		int32_t l = fs->comp_l[i];
		/* (a margin far above rounding: a link that might fill stays) */
		if (fs->lf_n[l] == 0 || fs->bound[l] * (1 + 1e-9) < fs->cap[l])
			continue;
		fs->rem[l] = fs->cap[l];
		fs->unfrozen[l] = fs->lf_live[l];	/* = lf_n[l] unweighted */
		fs->share[l] = fs->cap[l] / fs->lf_live[l];
		fs->lh[fs->n_lh] = l;
		fs->lh_pos[l] = fs->n_lh++;
	}
	for (int32_t i = fs->n_lh / 2; i-- > 0;)
		l_down(fs, i);
	while (fs->n_lh > 0) {
		int32_t l = fs->lh[0];
		while (ci < nc && fs->frozen[fs->capped[ci]])
			ci++;
		if (ci < nc && fs->f[fs->capped[ci]].max_Bps < fs->share[l]) {
			int32_t id = fs->capped[ci++];
			freeze(fs, id, fs->f[id].max_Bps, -1);
			continue;
		}
		/* Rounding must not starve a flow: a share never drops below a
		 * tiny fraction of the link. */
		double s = fs->share[l], floor_s = fs->cap[l] * 1e-12;
		if (s < floor_s)
			s = floor_s;
		l_remove(fs, l);
		for (int32_t k = 0; k < fs->lf_n[l]; k++) {
			int32_t id = fs->lf[l][k].id;
			if (!fs->frozen[id])
				freeze(fs, id, s, l);
		}
	}
	/* Flows whose every link stayed out of the heap: their ceilings
	 * (only a flow with one can be such, see bound_links). */
	for (; ci < nc; ci++)
		if (!fs->frozen[fs->capped[ci]])
			freeze(fs, fs->capped[ci], fs->f[fs->capped[ci]].max_Bps, -1);
}

void flow_solve(struct flow_sys *fs, int64_t now_ns)
{
	int32_t nl, nf;

	fs->n_solved = 0;
	if (fs->n_dirty == 0)
		return;
	collect(fs, &nl, &nf);
	fs->n_solved = nf;
	for (int32_t i = 0; i < nl; i++)
		fs->lh_pos[fs->comp_l[i]] = -1;
	int32_t nc = 0;
	for (int32_t i = 0; i < nf; i++) {
		struct flow *f = &fs->f[fs->comp_f[i]];
		f->left -= f->rate * (double)(now_ns - f->t_last) * 1e-9;
		if (f->left < 0)
			f->left = 0;
		f->t_last = now_ns;
		fs->frozen[fs->comp_f[i]] = 0;
		if (f->max_Bps > 0)
			fs->capped[nc++] = fs->comp_f[i];
	}
	if (nc > 1) {
		sort_fs = fs;
		qsort(fs->capped, (size_t)nc, sizeof *fs->capped, by_cap);
	}
	bound_links(fs, nl, nf);
	fill(fs, nl, nc);
	bool bulk = nf > fs->n_th / 8;	/* cheaper to rebuild than to sift each */
	for (int32_t i = 0; i < nf; i++) {
		int32_t id = fs->comp_f[i];
		struct flow *f = &fs->f[id];
		double dt_ns = ceil(f->left / f->rate * 1e9);
		f->key_ns = dt_ns < 4e18 ? now_ns + (int64_t)dt_ns : INT64_MAX;
		if (!bulk)
			t_update(fs, id);
	}
	if (bulk)
		t_heapify(fs);
	fs->rated += (uint64_t)nf;
}

int64_t flow_next_ns(const struct flow_sys *fs)
{
	return fs->n_th ? fs->th[0].key_ns : INT64_MAX;
}

/* A transfer is over: leave the links, count the bytes, start the tail
 * (the caller moves the flow in the time heap). */
static void end_transfer(struct flow_sys *fs, int32_t id, int64_t now_ns)
{
	struct flow *f = &fs->f[id];

	for (int h = 0; h < f->n; h++) {
		fs->lf_live[f->path[h]] -= f->w;
		mark_dirty(fs, f->path[h]);
		fs->link_bytes[f->path[h]] += f->bytes;
		if (fs->tier && fs->tier[f->path[h]] < fs->n_tiers)
			fs->tier_bytes[fs->tier[f->path[h]]] += f->bytes;
	}
	f->n = 0;
	f->left = 0;
	f->rate = 0;
	f->state = FLOW_DRAIN;
	f->key_ns = now_ns <= INT64_MAX - f->lat_ns ? now_ns + f->lat_ns : INT64_MAX;
}

/* Take the entries due at now (key <= now) out of the time heap, into
 * fs->due in (key, seq) order; returns how many, or 0 (heap untouched)
 * when they are too few to be worth it or there is no room.  Due entries
 * form a subtree at the root, found without looking at the rest; the rest
 * is rebuilt in linear time. */
static int32_t take_due(struct flow_sys *fs, int64_t now_ns)
{
	int32_t k = 0;

	if (fs->n_th == 0 || fs->th[0].key_ns > now_ns)
		return 0;
	if (fs->cap_due < fs->n_th) {
		struct t_ent *d = realloc(fs->due, sizeof *d * (size_t)fs->cap_f);
		int32_t *a = realloc(fs->due_at, sizeof *a * (size_t)fs->cap_f);
		if (d)
			fs->due = d;
		if (a)
			fs->due_at = a;
		if (!d || !a)
			return 0;	/* the one at a time way needs no room */
		fs->cap_due = fs->cap_f;
	}
	fs->due_at[k++] = 0;
	for (int32_t h = 0; h < k; h++)
		for (int32_t c = 2 * fs->due_at[h] + 1, end = c + 2; c < end && c < fs->n_th; c++)
			if (fs->th[c].key_ns <= now_ns)
				fs->due_at[k++] = c;
	if ((int64_t)k * 8 < fs->n_th)
		return 0;	/* a few: popping them one by one is cheaper */
	for (int32_t h = 0; h < k; h++) {
		fs->due[h] = fs->th[fs->due_at[h]];
		fs->hpos[fs->due[h].id] = -1;
		fs->th[fs->due_at[h]].id = -1;
	}
	int32_t n = 0;
	for (int32_t i = 0; i < fs->n_th; i++)
		if (fs->th[i].id >= 0)
			t_set(fs, n++, fs->th[i]);
	fs->n_th = n;
	for (int32_t i = n / 2; i-- > 0;)
		t_down(fs, i);
	t_sort(fs->due, k);
	return k;
}

/* Ends and deliveries due at now, in (key, seq) order: one at a time off
 * the heap's top, or, when many are due at once (a phase's flows often
 * end together), taken out in a batch (take_due) and merged with what the
 * heap gains meanwhile (tails with no latency, flows the callbacks add):
 * the same order either way. */
int flow_advance(struct flow_sys *fs, int64_t now_ns, flow_done_fn done,
		 void *ctx, struct err *e)
{
	int32_t k = take_due(fs, now_ns), i = 0;

	for (;;) {
		bool heap_due = fs->n_th > 0 && fs->th[0].key_ns <= now_ns;
		bool batch = i < k && (!heap_due || t_less(&fs->due[i], &fs->th[0]));
		if (!batch && !heap_due)
			break;
		int32_t id = batch ? fs->due[i++].id : fs->th[0].id;
		if (fs->f[id].state == FLOW_SEND) {
			end_transfer(fs, id, now_ns);
			if (batch)
				t_push(fs, id);
			else
				t_update(fs, id);
			continue;
		}
		uint64_t owner = fs->f[id].owner;
		if (!batch)
			t_remove(fs, id);
		fs->f[id].state = FLOW_FREE;
		fs->free_ids[fs->n_free++] = id;
		fs->live--;
		if (done && done(ctx, owner, e) < 0) {
			for (; i < k; i++)	/* back in the heap, for freeing */
				t_push(fs, fs->due[i].id);
			return -1;
		}
	}
	return 0;
}

void flow_grow(struct flow_sys *fs, int32_t id, double bytes)
{
	struct flow *f = &fs->f[id];

	f->w++;
	f->bytes += bytes;
	f->left += bytes;
	for (int h = 0; h < f->n; h++) {
		fs->lf_live[f->path[h]]++;
		mark_dirty(fs, f->path[h]);
	}
}

void flow_cancel(struct flow_sys *fs, int32_t id)
{
	struct flow *f = &fs->f[id];

	if (f->state == FLOW_FREE)
		return;
	for (int h = 0; h < f->n; h++) {
		fs->lf_live[f->path[h]] -= f->w;
		mark_dirty(fs, f->path[h]);	/* its entries go at the next solve */
	}
	f->n = 0;
	f->rate = 0;
	f->state = FLOW_FREE;
	if (fs->hpos[id] >= 0)
		t_remove(fs, id);
	fs->free_ids[fs->n_free++] = id;
	fs->live--;
}

int flow_path(const struct flow_sys *fs, int32_t id, const int32_t **path)
{
	*path = fs->f[id].path;
	return fs->f[id].n;
}

void flow_set_max(struct flow_sys *fs, int32_t id, double max_Bps)
{
	struct flow *f = &fs->f[id];

	f->max_Bps = max_Bps > 0 ? max_Bps : 0;
	for (int h = 0; h < f->n; h++)
		mark_dirty(fs, f->path[h]);
}

uint64_t flow_owner(const struct flow_sys *fs, int32_t id)
{
	return fs->f[id].owner;
}

double flow_rate_Bps(const struct flow_sys *fs, int32_t id)
{
	return fs->f[id].rate;
}

size_t flow_count(const struct flow_sys *fs)
{
	return fs->live;
}

const int32_t *flow_link_load(const struct flow_sys *fs)
{
	return fs->lf_live;
}

const double *flow_link_bytes(const struct flow_sys *fs)
{
	return fs->link_bytes;
}

const double *flow_tier_bytes(const struct flow_sys *fs)
{
	return fs->tier_bytes;
}

int32_t flow_solved(const struct flow_sys *fs, const int32_t **ids)
{
	*ids = fs->comp_f;
	return fs->n_solved;
}

uint64_t flow_stat_rated(const struct flow_sys *fs)
{
	return fs->rated;
}

size_t flow_sys_bytes(const struct flow_sys *fs)
{
	size_t b = sizeof *fs + (size_t)fs->n_links *
		   (sizeof(int32_t *) + 6 * sizeof(int32_t) + 4 * sizeof(double) +
		    sizeof(uint32_t) + 1);

	for (int32_t l = 0; l < fs->n_links; l++)
		b += (size_t)fs->lf_cap[l] * sizeof(struct lf_ent);
	/* per flow id: the flow, its time-heap entry, free_ids, hpos, comp_f,
	 * capped, frozen; then flow_advance's batch room */
	b += (size_t)fs->cap_f * (sizeof(struct flow) + sizeof(struct t_ent) +
				  4 * sizeof(int32_t) + 1);
	return b + (size_t)fs->cap_due * (sizeof(struct t_ent) + sizeof(int32_t));
}
