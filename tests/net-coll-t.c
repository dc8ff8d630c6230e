/*
 * net-coll-t.c -- collectives against their closed forms and against
 * measured nccl-tests bandwidths.
 *
 * Closed forms (nccl-tests doc/PERFORMANCE.md; doc/sources.md section 8): a ring
 * all-reduce of S bytes over n GPUs, each with bandwidth B, takes
 * 2(n-1)/n * S/B + 2(n-1)*alpha; reduce-scatter and all-gather
 * (n-1)/n * S/B + (n-1)*alpha.  alpha is the per-step latency, here
 * NCCL's step latency (the catalog default 3.4 us on NVLink, 9.6 us on
 * the network, from NCCL's tuning model) with wire latency set to 0 so the
 * formula is exact (to the nanosecond: times are whole ns, hence the
 * tolerance 1e-5 on times of ~100 us and more).
 *
 * Measured (doc/sources.md section 8): DGX A100 8-GPU NVLink all-reduce busbw about
 * 230 GB/s (nccl-tests#149); two DGX A100 over 8 x HDR about 192 GB/s
 * (nccl#812).  The model uses the catalog's efficiencies: NVLink3 230/300
 * (nccl-tests#149), InfiniBand 0.97 (48.5 of 50 GB/s on one NDR NIC,
 * nccl-tests#267) -- the second check is therefore an independent one.
 */
#include <stdlib.h>

#include "tap.h"
#include "topologies/coll.h"
#include "topologies/topo.h"

static struct net *make(struct net_params *p)
{
	struct err e = { 0 };
	struct net *net = net_new(p, NULL, &e);

	if (net == NULL)
		tap_diag("net_new: %s", e.msg);
	return net;
}

/* DGX A100 nodes (the defaults: 8 GPUs, NVLink3, 8 HDR NICs) for gpus GPUs. */
static struct net *dgx_a100(int gpus)
{
	struct net_params p;

	net_params_default(&p);
	p.gpus = gpus;
	return make(&p);
}

static double coll_time(struct net *net, enum coll_op op, enum coll_algo algo,
			int first, int n, double S)
{
	int gpus[256];
	struct err e = { 0 };

	for (int i = 0; i < n; i++)
		gpus[i] = first + i;
	struct coll c = { op, algo, gpus, n, S, 0 };
	double t = net_coll_time_s(net, &c, &e);
	if (t < 0)
		tap_diag("net_coll_time_s: %s", e.msg);
	return t;
}

static void one_node_closed_forms(void)
{
	struct net_params p;

	net_params_default(&p);
	p.nvlink.latency_ns = 0;
	p.base_latency_ns = 0;
	struct net *net = make(&p);
	double B = 300e9 * 0.767, a = 3400e-9, S = 1e8;
	int n = 8;

	tap_near(coll_time(net, COLL_ALL_REDUCE, COLL_RING, 0, n, S),
		 2.0 * (n - 1) / n * S / B + 2 * (n - 1) * a, 1e-5,
		 "ring all-reduce, 8 GPUs: 2(n-1)/n S/B + 2(n-1) alpha");
	tap_near(coll_time(net, COLL_REDUCE_SCATTER, COLL_RING, 0, n, S),
		 (double)(n - 1) / n * S / B + (n - 1) * a, 1e-5,
		 "reduce-scatter: (n-1)/n S/B + (n-1) alpha");
	tap_near(coll_time(net, COLL_ALL_GATHER, COLL_RING, 0, n, S),
		 (double)(n - 1) / n * S / B + (n - 1) * a, 1e-5,
		 "all-gather: (n-1)/n S/B + (n-1) alpha");
	/* Four GPUs of the node: the same formula with n = 4. */
	tap_near(coll_time(net, COLL_ALL_REDUCE, COLL_RING, 2, 4, S),
		 2.0 * 3 / 4 * S / B + 2 * 3 * a, 1e-5,
		 "ring all-reduce, 4 of the 8 GPUs");
	/* Broadcast: a pipelined chain, S/B + (n-1) alpha. */
	tap_near(coll_time(net, COLL_BROADCAST, COLL_RING, 0, n, S),
		 S / B + (n - 1) * a, 1e-5, "broadcast: S/B + (n-1) alpha");
	/* All-to-all: each GPU sends (n-1) pieces of S/n through its one
	 * NVLink port at once: (n-1)/n S/B + alpha. */
	tap_near(coll_time(net, COLL_ALL_TO_ALL, COLL_RING, 0, n, S),
		 (double)(n - 1) / n * S / B + a, 1e-5,
		 "all-to-all: (n-1)/n S/B + alpha");
	/* alltoallv (an MoE dispatch whose busiest expert's rank takes in F
	 * times the mean): GPU 0 receives F S/n from each of the other n-1
	 * through its one NVLink port, the rest finish sooner:
	 * (n-1)/n F S/B + alpha; F = 2: 7/4 S/B. */
	int all8[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct coll v = { COLL_ALL_TO_ALL, COLL_AUTO, all8, 8, S, 2 };
	struct err ev = { 0 };
	tap_near(net_coll_time_s(net, &v, &ev), 7.0 / 8 * 2 * S / B + a, 1e-5,
		 "alltoallv, imbalance 2: (n-1)/n F S/B + alpha");
	v.skew = 8;	/* every token to GPU 0: 7 S/B */
	tap_near(net_coll_time_s(net, &v, &ev), 7 * S / B + a, 1e-5,
		 "alltoallv, imbalance n: all to one, (n-1) S/B + alpha");
	v.skew = 9;
	tap_ok(net_coll_time_s(net, &v, &ev) < 0 && ev.status == ERR_USAGE &&
	       strstr(ev.msg, "imbalance 9") != NULL,
	       "alltoallv: an imbalance above n refused (%s)", ev.msg);
	/* Sendrecv between two GPUs: S/B + alpha. */
	int pair[2] = { 3, 6 };
	struct coll sr = { COLL_SENDRECV, COLL_AUTO, pair, 2, S, 0 };
	struct err e = { 0 };
	tap_near(net_coll_time_s(net, &sr, &e), S / B + a, 1e-5, "sendrecv: S/B + alpha");
	net_free(net);
}

static void multi_node_closed_form(void)
{
	/* Four nodes of one GPU with one HDR NIC each on a two-tier fat tree
	 * of radix 4 (two leaves, two spines): the ring crosses the fabric at
	 * every step, each edge on its own links.  B = 25 GB/s * 0.97. */
	struct net_params p;

	net_params_default(&p);
	p.gpus = 4;
	p.gpus_per_node = p.nics_per_node = p.domain_gpus = 1;
	p.scale_out.latency_ns = 0;
	p.base_latency_ns = 0;
	p.ft.radix = 4;
	struct net *net = make(&p);
	double B = 25e9 * 0.97, a = 9600e-9, S = 1e8;

	tap_near(coll_time(net, COLL_ALL_REDUCE, COLL_RING, 0, 4, S),
		 2.0 * 3 / 4 * S / B + 2 * 3 * a, 1e-5,
		 "ring all-reduce across 4 nodes: 2(n-1)/n S/B + 2(n-1) alpha");
	tap_near(coll_time(net, COLL_ALL_GATHER, COLL_RING, 0, 4, S),
		 3.0 / 4 * S / B + 3 * a, 1e-5,
		 "all-gather across 4 nodes: (n-1)/n S/B + (n-1) alpha");
	net_free(net);
}

/*
 * A group with one GPU a host across multi-node NVLink domains (GB200
 * NVL72's trays in racks; here two domains of four hosts of two GPUs, a
 * NIC a GPU): the data-parallel group of TP 2, GPUs 0, 2, ..., 14.  NCCL
 * takes each NVLink domain as one node (its MNNVL clique, coll.c
 * group_gpus), so a ring goes round a domain's four over NVLink and
 * leaves it by a different GPU's NIC on each of four channels: a
 * reduce-scatter of S takes (n-1)/n (S/4)/B on the NICs (NVLink, 230
 * GB/s a GPU, carries it faster).  Grouped by host, every channel left by
 * the same NIC: (n-1)/n S/B, four times as long.
 */
static void mnnvl_strided_group(void)
{
	struct net_params p;
	int gpus[8];
	struct err e = { 0 };

	net_params_default(&p);
	p.gpus = 16;
	p.gpus_per_node = p.nics_per_node = 2;
	p.domain_gpus = 8;
	p.scale_out.latency_ns = 0;
	p.base_latency_ns = 0;
	struct net *net = make(&p);
	double B = 25e9 * 0.97, S = 4e9;
	for (int i = 0; i < 8; i++)
		gpus[i] = 2 * i;
	struct coll c = { COLL_REDUCE_SCATTER, COLL_RING, gpus, 8, S, 0 };
	double t = net_coll_time_s(net, &c, &e);
	if (t < 0)
		tap_diag("net_coll_time_s: %s", e.msg);
	tap_near(t, 7.0 / 8 * S / 4 / B, 1e-2,
		 "strided group over two NVLink domains of 4 hosts: a NIC per "
		 "channel, (n-1)/n (S/4)/B");
	net_free(net);
}

static void measured_busbw(void)
{
	double S = 1 << 30;

	/* DGX A100, catalog defaults (latencies included), 1 GiB. */
	struct net *net = dgx_a100(8);
	double t = coll_time(net, COLL_ALL_REDUCE, COLL_RING, 0, 8, S);
	double busbw = S / t * coll_busbw_factor(COLL_ALL_REDUCE, 8) / 1e9;
	tap_diag("8 x A100 NVLink all-reduce busbw %.1f GB/s (measured 230)", busbw);
	tap_near(busbw, 230, 0.05, "8 x A100 NVLink all-reduce busbw within 5% of 230 GB/s");
	net_free(net);

	/* Two DGX A100, 8 HDR NICs each, rail-optimised leaf (radix 40). */
	net = dgx_a100(16);
	t = coll_time(net, COLL_ALL_REDUCE, COLL_RING, 0, 16, S);
	busbw = S / t * coll_busbw_factor(COLL_ALL_REDUCE, 16) / 1e9;
	tap_diag("2 x DGX A100, 8 x HDR all-reduce busbw %.1f GB/s (measured 192)", busbw);
	tap_near(busbw, 192, 0.05, "2 x DGX A100 over 8 x HDR all-reduce busbw within 5% of 192 GB/s");
	net_free(net);
}

static void tree_ceiling(void)
{
	/* Two DGX A100, tree, 1 GiB: NCCL's tree reaches 22.5 GB/s busbw per
	 * channel on two nodes (tuning.cc perChMaxTreeBw, Ampere); 8 channels
	 * (one per NIC): 8 x 22.5 = 180 GB/s, below the ring's ~192, so
	 * AUTO keeps the ring at this size, as NCCL does. */
	struct err e = { 0 };
	int gpus[16];
	enum coll_algo algo;

	struct net *net = dgx_a100(16);
	double S = 1 << 30;
	double t = coll_time(net, COLL_ALL_REDUCE, COLL_TREE, 0, 16, S);
	tap_near(S / t * coll_busbw_factor(COLL_ALL_REDUCE, 16) / 1e9, 180, 0.01,
		 "tree on 2 nodes: 8 channels x 22.5 GB/s busbw");
	for (int i = 0; i < 16; i++)
		gpus[i] = i;
	struct coll c = { COLL_ALL_REDUCE, COLL_AUTO, gpus, 16, S, 0 };
	net_coll_resolve(net, &c, &algo, &e);
	tap_ok(algo == COLL_RING, "AUTO on 2 nodes, 1 GiB: ring (got %s)", coll_algo_name(algo));
	net_free(net);
}

static void hierarchical(void)
{
	/* Two DGX A100: NVLink reduce-scatter, per-rail ring across the two
	 * nodes (S/8 each way over one NIC), NVLink all-gather.  Wire
	 * latencies: 2 NVLink hops (600 ns) in phases 1 and 3, NIC-leaf-NIC
	 * (2 x 130 ns) in phase 2. */

	struct net *net = dgx_a100(16);
	double Bn = 300e9 * 0.767, Bi = 25e9 * 0.97, S = 1e8;
	double an = 3400e-9, ai = 9600e-9, base = 8400e-9;
	double want = base + 2 * (7.0 / 8 * S / Bn + 7 * an + 600e-9) +
		      (S / 8) / Bi + 2 * ai + 260e-9;

	tap_near(coll_time(net, COLL_ALL_REDUCE, COLL_HIER, 0, 16, S), want, 1e-5,
		 "hierarchical all-reduce, 2 nodes: RS + per-rail ring + AG");
	net_free(net);
}

static void auto_choice(void)
{
	/* 64 nodes of one GPU: for 1 KiB the ring's 126 network steps cost
	 * ~1.2 ms, the tree's 2*6 steps ~0.1 ms: AUTO must take the tree.  At
	 * 1 GiB the tree moves 2S per node against the ring's ~2S(n-1)/n but
	 * its inner nodes serve three neighbours at once: the ring wins. */
	struct net_params p;
	struct err e = { 0 };
	int gpus[64];
	enum coll_algo algo;

	net_params_default(&p);
	p.gpus = 64;
	p.gpus_per_node = p.nics_per_node = p.domain_gpus = 1;
	struct net *net = make(&p);
	for (int i = 0; i < 64; i++)
		gpus[i] = i;
	struct coll small = { COLL_ALL_REDUCE, COLL_AUTO, gpus, 64, 1024, 0 };
	struct coll big = { COLL_ALL_REDUCE, COLL_AUTO, gpus, 64, 1 << 30, 0 };
	net_coll_resolve(net, &small, &algo, &e);
	tap_ok(algo == COLL_TREE, "AUTO picks the tree for 1 KiB over 64 nodes (got %s)",
	       coll_algo_name(algo));
	net_coll_resolve(net, &big, &algo, &e);
	tap_ok(algo == COLL_RING, "AUTO picks the ring for 1 GiB over 64 nodes (got %s)",
	       coll_algo_name(algo));
	double tt = coll_time(net, COLL_ALL_REDUCE, COLL_TREE, 0, 64, 1024);
	double tr = coll_time(net, COLL_ALL_REDUCE, COLL_RING, 0, 64, 1024);
	tap_ok(tt < tr, "tree beats ring at 1 KiB (%.1f vs %.1f us)", tt * 1e6, tr * 1e6);
	net_free(net);
}

static void table(void)
{
	struct err e = { 0 };
	struct tap_capture c;

	struct net *net = dgx_a100(8);
	int rc = coll_table_print(net, COLL_ALL_REDUCE, COLL_AUTO, 1 << 20,
				  1 << 30, 4, 8, 0, tap_capture_start(&c), &e);
	char *buf = tap_capture_end(&c);
	int lines = 0;
	for (size_t i = 0; i < c.len; i++)
		lines += buf[i] == '\n';
	/* 1 MiB, 4, 16, 64, 256 MiB, 1 GiB: 6 rows after 4 header lines, then
	 * "# auto chose ...", "# Avg bus bandwidth ..." and "#". */
	tap_ok(rc == 0 && lines == 13, "table: 6 sizes from 1 MiB to 1 GiB by 4 (%d lines)", lines);
	tap_ok(strstr(buf, "\n# Avg bus bandwidth    : ") != NULL &&
	       strstr(buf, "\n# auto chose ") != NULL,
	       "table: closes with what auto chose and nccl-tests' average line");
	tap_ok(strstr(buf, "1073741824") != NULL, "table lists 1073741824 bytes");
	fputs(buf, stdout);
	free(buf);
	FILE *out = tap_capture_start(&c);
	tap_ok(coll_table_print(net, COLL_ALL_REDUCE, COLL_RING, 1024, 4096, 2, 9, 0, out, &e) < 0 &&
	       e.status == ERR_USAGE, "table: 9 ranks on 8 GPUs is a usage error");
	e.status = 0;
	tap_ok(coll_table_print(net, COLL_ALL_REDUCE, COLL_RING, 1024, 4096, 1, 8, 0, out, &e) < 0 &&
	       e.status == ERR_USAGE, "table: a factor of 1 is a usage error");
	free(tap_capture_end(&c));
	net_free(net);
}

int main(void)
{
	tap_plan(26);
	one_node_closed_forms();
	multi_node_closed_form();
	mnnvl_strided_group();
	measured_busbw();
	hierarchical();
	tree_ceiling();
	auto_choice();
	table();
	return tap_done();
}
