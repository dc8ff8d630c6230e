/*
 * acct-network-t.c -- the network's power in accounting comes from the
 * platform as built: its idle power and switches shared by the nodes held,
 * and the traffic the step model measured at each tier's energy per bit.
 *
 * tests/acct/power.cfg (model.cfg's 4 nodes) and scenarios/tiny.cfg run on the default fabric,
 * rail-optimised HDR (QM8700: 40 ports, 253 W; ConnectX-6: 15 W; 1.58 pJ
 * per bit per link crossed, links.cfg).  4 nodes: one unit of 8 rail
 * leaves, 20 spines of 8 ports on 4 switches: 12 x 253 + 32 x 15 = 3,516 W.
 * 2 nodes (tiny): the same 12 switches and 16 NICs: 3,276 W.
 */
#include <math.h>

#include "acct-load.h"
#include "models/step.h"

#define HDR_J_PER_BIT 1.58e-12

static void shares_and_traffic(void)
{
	static const char *const ov[] = { "carbon.embodied_gpu_kg=0",
					   "carbon.embodied_server_kg=0",
					   "links.ib_hdr.switch_embodied_kg=1000",
					   "links.ib_hdr.nic_embodied_kg=100" };
	struct fixture f;
	const struct acct_totals *t;
	double life_s = 6 * 365.25 * 86400;	/* carbon.service_life_years */

	if (fixture_open(&f, "power.cfg", ov, 4) < 0)
		return;
	/* Hour 1: all 4 nodes, 2 GB/s on leaf links, 1 GB/s on spine links
	 * and 50 GB/s on NVLink (free: in the GPU's power).  Hour 2: 2 nodes
	 * held, no traffic: half the fabric. */
	struct activity act = held(4, 0);
	act.tier_bytes_per_s[TIER_LEAF] = 2e9;
	act.tier_bytes_per_s[TIER_SPINE] = 1e9;
	act.tier_bytes_per_s[TIER_NVLINK] = 50e9;
	acct_set_activity(f.a, 0, &act);
	struct activity half = held(2, 0);
	acct_set_activity(f.a, 3600 * S, &half);
	acct_advance(f.a, 7200 * S);
	t = acct_totals(f.a);
	tap_near(t->network_energy_j,
		 (3516 + 3e9 * 8 * HDR_J_PER_BIT) * 3600 + 3516 / 2.0 * 3600, 1e-12,
		 "network: 3,516 W + 3 GB/s x 8 x 1.58 pJ for an hour, then half the fabric");
	tap_near(t->embodied_kg, (12 * 1000.0 + 32 * 100.0) * 1.5 * 3600 / life_s, 1e-12,
		 "embodied: 12 switches x 1 t + 32 NICs x 100 kg for an hour, then their "
		 "half, over 6 years");
	fixture_close(&f);
}

/* tiny.cfg on the step model, undisturbed: the network's energy is its
 * idle power over the run plus, per iteration, the bytes the step model
 * put on HDR links at 1.58 pJ per bit. */
static void run_on_step_model(void)
{
	static const char *const ov[] = { "failures.enabled=false",
					   "training.checkpoint.enabled=false" };
	char path[4096];
	struct err e = { 0 };
	struct cfg_schema *schema = run_schema_new();
	struct run_opts o = { .seed = 1 };
	struct report *rep = rep_new();
	struct tfm m;
	struct layout L;
	struct gpu_spec g;
	struct step_result st;
	struct step_cfg cfg = { 0 };
	struct scenario *sc;

	snprintf(path, sizeof path, "%s/scenarios/tiny.cfg", tap_srcdir());
	sc = sc_load(schema, path, ov, 2, &e);
	if (sc != NULL) {
		tfm_from_scenario(sc, &m);
		if (layout_from_scenario(sc, &m, &L, &e) == 0)
			gpu_from_scenario(sc, L.gpu, &g);
	}
	if (sc != NULL)
		step_cfg_from_scenario(sc, &cfg);
	if (sc == NULL || e.status != 0 || step_cfg_read_net(sc, &cfg, &e) < 0 ||
	    step_simulate(&cfg, &m, &L, &g, &st, &e) < 0 || run_simulate(sc, &o, rep, &e) < 0) {
		tap_ok(0, "tiny.cfg on the step model: %s", e.msg);
	} else {
		double fabric_bytes = 0;
		for (size_t i = 0; i < st.n_tiers; i++)
			if (strcmp(st.tier_names[i], "nvlink") != 0)
				fabric_bytes += st.tier_bytes[i];
		tap_diag("%.4g fabric bytes per iteration", fabric_bytes);
		tap_ok(fabric_bytes > 0, "the step model carries bytes over the fabric");
		tap_near(rep_summary_get(rep, "network_energy_kwh") * 3.6e6,
			 3276 * rep_summary_get(rep, "duration_s") +
			 fabric_bytes * 8 * HDR_J_PER_BIT * rep_summary_get(rep, "iterations"),
			 1e-9, "tiny: 3,276 W x duration + fabric bytes x 8 x 1.58 pJ x iterations");
	}
	step_cfg_free(&cfg);
	rep_free(rep);
	sc_free(sc);
	cfg_schema_free(schema);
}

int main(void)
{
	tap_plan(4);
	shares_and_traffic();
	run_on_step_model();
	return tap_done();
}
