/*
 * net-cfg-t.c -- the network built from a scenario with the real links and
 * gpus catalogs, and the scenario errors of issue 3's bad-input list, each
 * reported as FILE:LINE: KEY: message.
 *
 * Expected busbw: doc/sources.md's (section 8) measured all-reduce figures (230 GB/s on
 * DGX A100 NVLink, nccl-tests#149; 192 GB/s over 8 x HDR, nccl#812), with
 * the catalog's sourced efficiencies; within 5%.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "models/gpu.h"
#include "models/node.h"
#include "models/layout.h"
#include "topologies/coll.h"
#include "topologies/topo.h"

static struct cfg_schema *schema;
static char file[1024];

static struct net *build(const char *const *ov, size_t n, struct err *e)
{
	memset(e, 0, sizeof *e);
	struct scenario *sc = sc_load(schema, file, ov, n, e);
	if (sc == NULL)
		return NULL;
	struct net_cfg *cfg = net_cfg_from_scenario(sc, e);
	struct net *net = cfg ? net_build(cfg, e) : NULL;
	net_cfg_free(cfg);
	sc_free(sc);
	return net;
}

static double busbw(struct net *net, int n, double S)
{
	int gpus[64];
	struct err e = { 0 };

	for (int i = 0; i < n; i++)
		gpus[i] = net_rank_gpu(net, i);
	struct coll c = { COLL_ALL_REDUCE, COLL_AUTO, gpus, n, S, 0 };
	return S / net_coll_time_s(net, &c, &e) * coll_busbw_factor(COLL_ALL_REDUCE, n) / 1e9;
}

static void from_catalog(void)
{
	struct err e;
	struct net *net = build(NULL, 0, &e);

	if (!tap_ok(net != NULL, "net-small.cfg builds")) {
		tap_diag("%s", e.msg);
		return;
	}
	tap_int(net_gpu_count(net), 16, "cluster.gpus = 16");
	tap_int(net_gpus_per_node(net), 8, "cluster.gpus_per_node = 8");
	tap_near(net->g.bw_Bps[net->nvl_link0], 300e9 * 0.767, 1e-12,
		 "a100_80gb -> nvlink3: 300 GB/s x 0.767 per direction");
	tap_near(net->g.bw_Bps[net->ft->ep_link0], 25e9 * 0.97, 1e-12,
		 "ib_hdr: 200 Gb/s x 0.97");
	tap_int(net->ft->radix, 40, "fat-tree radix from the HDR switch (QM8700: 40)");
	double b8 = busbw(net, 8, 1 << 30), b16 = busbw(net, 16, 1 << 30);
	tap_diag("busbw from the catalog: %.1f GB/s on NVLink, %.1f GB/s over 8 x HDR", b8, b16);
	tap_near(b8, 230, 0.05, "DGX A100 NVLink all-reduce busbw within 5% of 230 GB/s");
	tap_near(b16, 192, 0.05, "2 x DGX A100 8 x HDR all-reduce busbw within 5% of 192 GB/s");
	net_free(net);

	const char *ov[] = { "network.placement=[8,9,10,11,12,13,14,15,0,1,2,3,4,5,6,7]" };
	net = build(ov, 1, &e);
	tap_ok(net && net_rank_gpu(net, 0) == 8 && net_rank_gpu(net, 15) == 7,
	       "network.placement maps rank 0 to GPU 8, rank 15 to GPU 7");
	net_free(net);

	const char *df[] = { "network.topology=dragonfly", "cluster.gpus=256" };
	net = build(df, 2, &e);
	tap_ok(net && net->df && net->df->a == 2 * net->df->p,
	       "dragonfly with p = a = h = g = 0 is balanced (a = 2p)");
	net_free(net);
}

/* The override must fail with "-s KEY=VALUE: KEY: ..." or a file line. */
static void bad(const char *ov, const char *key, const char *what)
{
	struct err e;
	const char *o[] = { ov };
	struct net *net = build(o, 1, &e);
	char want[256];

	snprintf(want, sizeof want, ": %s: ", key);
	int ok = net == NULL && e.status == ERR_USAGE && strstr(e.msg, want) != NULL;
	tap_ok(ok, "bad input, %s: names %s", what, key);
	if (!ok)
		tap_diag("got: %s", net ? "(built)" : e.msg);
	net_free(net);
}

static void copy(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");
	char buf[4096];
	size_t n;

	while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* A scenario file of its own (in a fresh directory, with copies of the
 * catalogs, since includes are relative to the file). */
static void bad_file(const char *text, bool links, const char *key, int line,
		     const char *what)
{
	char dir[] = "/tmp/net-cfg-t-XXXXXX", path[128], g[128], l[128], src[1024];
	char want[256];
	struct err e = { 0 };

	if (mkdtemp(dir) == NULL) {
		tap_ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof path, "%s/bad.cfg", dir);
	snprintf(g, sizeof g, "%s/gpus.cfg", dir);
	snprintf(l, sizeof l, "%s/links.cfg", dir);
	snprintf(src, sizeof src, "%s/scenarios/catalog/gpus.cfg", tap_srcdir());
	copy(src, g);
	snprintf(src, sizeof src, "%s/scenarios/catalog/links.cfg", tap_srcdir());
	copy(src, l);
	FILE *f = fopen(path, "w");
	fprintf(f, "@include \"gpus.cfg\"\n%s%s", links ? "@include \"links.cfg\"\n" : "",
		text);
	fclose(f);
	struct scenario *sc = sc_load(schema, path, NULL, 0, &e);
	struct net_cfg *cfg = sc ? net_cfg_from_scenario(sc, &e) : NULL;
	struct net *net = cfg ? net_build(cfg, &e) : NULL;
	net_cfg_free(cfg);
	snprintf(want, sizeof want, "%s:%d: %s: ", path, line, key);
	int ok = net == NULL && e.status == ERR_USAGE && strncmp(e.msg, want, strlen(want)) == 0;
	tap_ok(ok, "bad input in a file, %s: FILE:%d: %s", what, line, key);
	if (!ok)
		tap_diag("got: %s", net ? "(built)" : e.msg);
	net_free(net);
	sc_free(sc);
	unlink(path);
	unlink(g);
	unlink(l);
	rmdir(dir);
}

/* net_params_default is a copy of the schema's network.* defaults and of
 * the catalog's nvlink3, pcie_gen4 and ib_hdr: the same as a scenario that
 * sets none of them (NICs shared to read pcie_gen4). */
static bool same_link(const struct link_spec *a, const struct link_spec *b)
{
	return strcmp(a->name, b->name) == 0 && a->bw_Bps == b->bw_Bps &&
	       a->efficiency == b->efficiency && a->latency_ns == b->latency_ns &&
	       a->pj_per_bit == b->pj_per_bit && a->switch_radix == b->switch_radix &&
	       a->switch_w == b->switch_w && a->nic_w == b->nic_w &&
	       a->transceiver_w == b->transceiver_w &&
	       a->switch_embodied_kg == b->switch_embodied_kg &&
	       a->nic_embodied_kg == b->nic_embodied_kg;
}

static void defaults_match(void)
{
	static const char *const ov[] = { "network.nics_per_node=4" };
	struct net_params d;
	struct err e;
	struct net *net = build(ov, 1, &e);

	net_params_default(&d);
	if (net == NULL) {
		tap_ok(0, "net-small.cfg with shared NICs builds: %s", e.msg);
		tap_ok(0, "(skipped)");
		return;
	}
	const struct net_params *p = &net->p;
	tap_ok(same_link(&p->nvlink, &d.nvlink) && same_link(&p->pcie, &d.pcie) &&
	       same_link(&p->scale_out, &d.scale_out),
	       "net_params_default's links equal the catalog's nvlink3, pcie_gen4, ib_hdr");
	tap_ok(p->topology == d.topology && p->ft.tiers == d.ft.tiers &&
	       p->ft.radix == d.ft.radix && p->ft.oversub[0] == d.ft.oversub[0] &&
	       p->ft.oversub[1] == d.ft.oversub[1] && p->ft.ecmp == d.ft.ecmp &&
	       p->df.arrangement == d.df.arrangement && p->df.routing == d.df.routing &&
	       p->algo == d.algo && p->channels == d.channels && p->same_nic == d.same_nic &&
	       p->base_latency_ns == d.base_latency_ns &&
	       p->step_nvlink_ns == d.step_nvlink_ns && p->step_net_ns == d.step_net_ns &&
	       memcmp(p->tree_channel_busbw_Bps, d.tree_channel_busbw_Bps,
		      sizeof d.tree_channel_busbw_Bps) == 0,
	       "net_params_default's network settings equal the schema's defaults");
	net_free(net);
}

int main(void)
{
	schema = cfg_schema_new();
	cfg_schema_add(schema, layout_settings);
	cfg_schema_add(schema, gpu_settings);
	cfg_schema_add(schema, node_settings);
	cfg_schema_add(schema, net_settings);
	snprintf(file, sizeof file, "%s/tests/net-small.cfg", tap_srcdir());

	tap_plan(25);
	from_catalog();
	bad("network.fat_tree.radix=7", "network.fat_tree.radix", "odd radix");
	bad("network.fat_tree.tiers=1", "network.fat_tree.tiers", "one tier");
	bad("network.fat_tree.oversubscription=[1.37]", "network.fat_tree.oversubscription",
	    "ratio that does not split the ports");
	bad("cluster.gpus=16384", "cluster.gpus", "more nodes than a three-tier radix-40 tree has ports");
	bad("links.ib_hdr.bw_gbit_s=0", "links.ib_hdr.bw_gbit_s", "zero bandwidth");
	bad("links.ib_hdr.bw_gbit_s=-200", "links.ib_hdr.bw_gbit_s", "negative bandwidth");
	bad("network.placement=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,99]", "network.placement",
	    "placement names a missing GPU");
	bad("network.topology=none", "network.topology", "disconnected graph (two nodes, no fabric)");
	bad("network.scale_out_link=nvlink9", "network.scale_out_link", "unknown link");
	bad("network.nics_per_node=3", "network.nics_per_node", "NICs that do not divide a node");
	bad_file("cluster = { gpu = \"a100_80gb\"; gpus = 160; gpus_per_node = 8; };\n"
		 "parallel = { global_batch = 16; };\n"
		 "network = {\n\ttopology = \"dragonfly\";\n"
		 "\tdragonfly = {\n\t\tp = 2;\n\t\ta = 4;\n\t\th = 2;\n\t\tg = 10;\n\t};\n};\n",
		 true, "network.dragonfly.g", 11, "g > a*h+1");
	bad_file("cluster = { gpu = \"a100_80gb\"; gpus = 16; gpus_per_node = 8; };\n"
		 "parallel = { global_batch = 16; };\n"
		 "network = {\n\tfat_tree = {\n\t\tradix = 9;\n\t};\n};\n",
		 true, "network.fat_tree.radix", 7, "odd k");
	/* A fabric's switches and NICs draw power: a scale-out link without
	 * their watts is refused at the link (line 7), not taken as 0 W. */
	bad_file("cluster = { gpu = \"a100_80gb\"; gpus = 16; gpus_per_node = 8; };\n"
		 "parallel = { global_batch = 16; };\n"
		 "network = { scale_out_link = \"myib\"; };\n"
		 "links = {\n\tnvlink3 = { bw_Bps = 300e9; }; pcie_gen4 = { bw_Bps = 31.5e9; };\n"
		 "\tmyib = { bw_gbit_s = 200.0; switch_radix = 40; nic_w = 15.0; };\n};\n",
		 false, "links.myib", 7, "scale-out link without switch_w");
	defaults_match();
	cfg_schema_free(schema);
	return tap_done();
}
