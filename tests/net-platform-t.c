/*
 * net-platform-t.c -- the platform as built, counted by hand: switches per
 * tier, NICs and cables of the fat trees and the dragonfly of the 175B
 * scenarios, and their idle power from the links catalog (HDR: Quantum
 * QM8700 of 40 ports at 253 W typical, ConnectX-6 at 15 W) and embodied
 * carbon (280 kgCO2e per switch, ARCHER2's Slingshot figure; 17 per NIC,
 * 280 x 15 / 253; catalog/links.cfg).
 */
#include <string.h>

#include "tap.h"
#include "models/run.h"
#include "topologies/platform.h"
#include "topologies/topo.h"

#define QM8700_W 253.0
#define CX6_W 15.0
#define SWITCH_KG 280.0
#define NIC_KG 17.0

static int count(struct net_params *p, struct platform *pf)
{
	struct err e = { 0 };
	struct net *net = net_new(p, NULL, &e);

	if (net == NULL) {
		tap_diag("net_new: %s", e.msg);
		memset(pf, 0, sizeof *pf);
		return -1;
	}
	platform_of_net(net, pf);
	net_free(net);
	return 0;
}

/* 175b.cfg: 128 DGX A100 (1024 GPUs, a NIC each), rail-optimised HDR;
 * its oversubscribed variant; Patterson's 10,000 V100. */
static void fat_tree_175b(void)
{
	struct net_params p;
	struct platform pf;

	net_params_default(&p);
	p.gpus = 1024;
	count(&p, &pf);
	/* Leaves split 40 ports 20 down, 20 up.  Units of 20 nodes: 128 nodes
	 * fill 6 and 8 nodes of a 7th, 8 rail leaves each: 56 leaves, more
	 * than a spine's 40 ports, so three tiers.  Pods of 20 leaves: 3, with
	 * 20 aggregation switches each: 60.  20 x 20 = 400 cores of one port
	 * per pod: 1,200 ports, 30 switches of 40. */
	tap_int(pf.tier[TIER_LEAF].switches, 56, "175B fat tree: 56 leaves (7 units x 8 rails)");
	tap_int(pf.tier[TIER_SPINE].switches, 60, "... 60 aggregation switches (3 pods x 20)");
	tap_int(pf.tier[TIER_CORE].switches, 30, "... 30 cores (3 pods x 400 cores / 40 ports)");
	tap_int(pf.tier[TIER_CORE].cables, 1200, "... 1,200 core cables (60 x 20 up)");
	tap_int(pf.nics, 1024, "... 1,024 NICs");
	tap_near(pf.idle_w, 146 * QM8700_W + 1024 * CX6_W, 1e-12,
		 "... idle 146 x 253 W + 1,024 x 15 W = 52,298 W");
	tap_near(pf.embodied_kg, 146 * SWITCH_KG + 1024 * NIC_KG, 1e-12,
		 "... embodied 146 x 280 + 1,024 x 17 = 58,288 kgCO2e");

	/* 175b-fattree-oversub.cfg: 2:1 at aggregation, 40 ports as 26 down
	 * and 13 up.  Pods of 26 leaves: 3 still; cores 20 x 13 = 260 of 3
	 * ports: 780 ports, 19.5 switches, so 20. */
	p.ft.tiers = 3;
	p.ft.oversub[1] = 2;
	count(&p, &pf);
	tap_int(pf.switches, 56 + 60 + 20, "oversubscribed 2:1: 136 switches (20 cores)");
	tap_near(pf.idle_w, 136 * QM8700_W + 1024 * CX6_W, 1e-12,
		 "... idle 136 x 253 W + 1,024 x 15 W = 49,768 W");
	tap_near(pf.embodied_kg, 136 * SWITCH_KG + 1024 * NIC_KG, 1e-12,
		 "... embodied 136 x 280 + 1,024 x 17 = 55,488 kgCO2e");

	/* Patterson et al.'s 10,000 V100 (what the catalog's HDR would add to
	 * scenarios/validation/gpt3-patterson.cfg): 1,250 nodes fill 62 units
	 * of 20 and half a 63rd, 504 rail leaves; pods of 20 leaves: 26 (ceil
	 * 25.2), 520 aggregation switches; 400 cores of one port per pod:
	 * 10,400 ports, 260 switches of 40. */
	p.ft.tiers = 0;
	p.ft.oversub[1] = 1;
	p.gpus = 10000;
	count(&p, &pf);
	tap_int(pf.switches, 504 + 520 + 260, "10,000 GPUs: 1,284 switches");
	tap_near(pf.idle_w, 1284 * QM8700_W + 10000 * CX6_W, 1e-12,
		 "... idle 1,284 x 253 W + 10,000 x 15 W = 474,852 W");
}

/* 175b-dragonfly.cfg: balanced dragonfly for 1,024 endpoints. */
static void dragonfly_175b(void)
{
	struct net_params p;
	struct platform pf;

	net_params_default(&p);
	p.gpus = 1024;
	p.topology = TOPO_DRAGONFLY;
	count(&p, &pf);
	/* The smallest h with a*h*(a*h+1) >= 1024 for a = 2h is 4 (32 x 33):
	 * p = 4, a = 8, g = 1024 / 32 = 32 groups, 256 routers of 4 + 7 + 4 =
	 * 15 ports, each one 40-port switch.  Local: 32 x 8 x 7 / 2 = 896;
	 * global: 32 x 31 / 2 = 496 (32 channels per group, one per peer). */
	tap_int(pf.tier[TIER_TERMINAL].switches, 256, "dragonfly: 256 routers, a switch each");
	tap_int(pf.tier[TIER_LOCAL].cables, 896, "... 896 local cables");
	tap_int(pf.tier[TIER_GLOBAL].cables, 496, "... 496 global cables");
	tap_near(pf.idle_w, 256 * QM8700_W + 1024 * CX6_W, 1e-12,
		 "... idle 256 x 253 W + 1,024 x 15 W = 80,128 W");
	tap_near(pf.embodied_kg, 256 * SWITCH_KG + 1024 * NIC_KG, 1e-12,
		 "... embodied 256 x 280 + 1,024 x 17 = 89,088 kgCO2e");
}

/* Two tiers, and what is not counted. */
static void small(void)
{
	struct net_params p;
	struct platform pf;
	double bytes_per_s[TIER_COUNT] = { 0 };

	net_params_default(&p);
	p.gpus = 32;
	count(&p, &pf);
	/* 4 nodes: one unit, 8 rail leaves; 20 spines of one port per leaf
	 * (8 ports each), 160 ports on 4 switches of 40. */
	tap_int(pf.tier[TIER_SPINE].switches, 4, "32 GPUs: 20 spines of 8 ports fit 4 switches");
	tap_near(pf.idle_w, 12 * QM8700_W + 32 * CX6_W, 1e-12,
		 "... idle 12 x 253 W + 32 x 15 W = 3,516 W (NVSwitch: in the node)");
	/* 1 GB/s on leaf links and 100 GB/s on NVLink: 8e9 bits x 1.58 pJ. */
	bytes_per_s[TIER_LEAF] = 1e9;
	bytes_per_s[TIER_NVLINK] = 100e9;
	tap_near(platform_traffic_w(&pf, bytes_per_s), 8e9 * 1.58e-12, 1e-12,
		 "traffic: 1 GB/s on HDR leaf links at 1.58 pJ/bit, NVLink free");
	/* A fat tree of 20-port switches built from the 40-port catalog
	 * entry: half its power each.  2 nodes, one unit of 10: 8 leaves of
	 * 10 down, 10 up; 10 spines of 8 ports on 4 switches of 20. */
	p.gpus = 16;
	p.ft.radix = 20;
	count(&p, &pf);
	tap_near(pf.idle_w, 12 * QM8700_W / 2 + 16 * CX6_W, 1e-12,
		 "radix 20 from a 40-port switch: 12 x 126.5 W + 16 x 15 W");
	/* One node: every GPU in one NVLink domain, nothing crosses the
	 * fabric built beside it; only the node's 8 NICs draw. */
	net_params_default(&p);
	count(&p, &pf);
	tap_ok(pf.switches == 0 && pf.idle_w == 8 * CX6_W,
	       "one node: no switch counts, 8 NICs x 15 W");
	/* One NVLink domain and no fabric: no NIC, no switch power. */
	net_params_default(&p);
	p.topology = TOPO_NONE;
	count(&p, &pf);
	tap_ok(pf.nics == 0 && pf.switches == 0 && pf.idle_w == 0,
	       "no fabric: no NICs, no switches, 0 W");
}

/* The scenarios themselves, through net_build and the catalog: the
 * switch counts above at the catalog's watts and kilograms. */
static void scenario_175b(const char *file, int switches)
{
	char path[4096];
	struct err e = { 0 };
	struct cfg_schema *schema = run_schema_new();
	struct platform pf;

	snprintf(path, sizeof path, "%s/scenarios/%s", tap_srcdir(), file);
	struct scenario *sc = sc_load(schema, path, NULL, 0, &e);
	struct net_cfg *net = sc ? net_cfg_from_scenario(sc, &e) : NULL;
	if (net == NULL || platform_from_cfg(net, &pf, &e) < 0) {
		tap_ok(0, "%s's platform: %s", file, e.msg);
		tap_ok(0, "%s's platform: %s", file, e.msg);
	} else {
		char name[160];
		snprintf(name, sizeof name, "scenarios/%s: %d x 253 W + 1,024 x 15 W "
			 "of network idle power", file, switches);
		tap_near(pf.idle_w, switches * QM8700_W + 1024 * CX6_W, 1e-12, name);
		snprintf(name, sizeof name, "... and %d x 280 + 1,024 x 17 kgCO2e "
			 "embodied", switches);
		tap_near(pf.embodied_kg, switches * SWITCH_KG + 1024 * NIC_KG, 1e-12, name);
	}
	net_cfg_free(net);
	sc_free(sc);
	cfg_schema_free(schema);
}

int main(void)
{
	tap_plan(31);
	fat_tree_175b();
	dragonfly_175b();
	small();
	scenario_175b("175b.cfg", 146);
	scenario_175b("175b-fattree-oversub.cfg", 136);
	scenario_175b("175b-dragonfly.cfg", 256);
	scenario_175b("175b-spot.cfg", 146);
	return tap_done();
}
