/*
 * acct-energy-t.c -- energy is the exact integral of power; trace steps
 * split carbon and cost exactly; a carbon trace and its mean differ by the
 * covariance of power and intensity.  Every expected number is worked out
 * here from the settings in tests/acct/ and the catalog (A100: idle 50 W,
 * TDP 400 W).
 */
#include <math.h>

#include "acct-load.h"
#include "models/trace.h"

/* acct_sample fills 12 fixed columns, then 4 DCGM series per pool. */
#define DCGM0 12
#define IDLE_W 50.0
#define TRAIN_W (50.0 + 0.8 * (400.0 - 50.0))	/* acct-load.h's busy fraction: 330 W */

/* Hosts: the node catalog's dgx_a100 (the default for a100_80gb): busy
 * 315 + 224 + 36 + 500 + 106 + 420 + 150 = 1,751 W, idle 135 + 96 + 24 +
 * 150 + 44 + 180 + 100 = 729 W, supplies 95% efficient.  A node is busy
 * while its GPUs train: `training` GPUs of 8 per node keep training / 8
 * nodes busy. */
#define HOST_BUSY_W 1751.0
#define HOST_IDLE_W 729.0
#define PSU_EFF 0.95
static double node_w(double gpu_w, int nodes, int training)
{
	double busy = training / 8.0;
	double host = busy * HOST_BUSY_W + (nodes - busy) * HOST_IDLE_W;

	return host + (gpu_w + host) * (1 / PSU_EFF - 1);
}

/* power.cfg: the nodes' share of the fabric as built: 4 nodes of 8 NICs
 * on rail-optimised HDR fill one unit of 8 leaves; 20 spines of 8 ports
 * fit 4 switches of 40: 12 x 253 W (QM8700) + 32 x 15 W (ConnectX-6) =
 * 3,516 W for 4 nodes. */
#define NETWORK_W (12 * 253.0 + 32 * 15.0)
static double it_power_w(int nodes, int training)
{
	double gpu_w = training * TRAIN_W + (nodes * 8 - training) * IDLE_W;

	return gpu_w + node_w(gpu_w, nodes, training) + nodes * NETWORK_W / 4;
}

static void test_integral(void)
{
	/* A run of irregular pieces, times in ns (not whole seconds). */
	static const struct { int64_t t_ns; int nodes, training; } steps[] = {
		{ 0, 4, 32 }, { 1234567891, 4, 0 }, { 98765432101, 3, 24 },
		{ 100000000007, 3, 10 }, { 3600 * S + 17, 4, 32 }, { 7777 * S + 1, 2, 0 },
	};
	int64_t end_ns = 9000 * S + 999;
	struct fixture f;
	double want_j = 0, dcgm_mj, v[128];
	const struct acct_totals *t;
	size_t n = sizeof steps / sizeof steps[0];

	if (fixture_open(&f, "power.cfg", NULL, 0) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct activity act = held(steps[i].nodes, steps[i].training);
		int64_t to = i + 1 < n ? steps[i + 1].t_ns : end_ns;
		acct_set_activity(f.a, steps[i].t_ns, &act);
		want_j += it_power_w(steps[i].nodes, steps[i].training) *
			  (double)(to - steps[i].t_ns) * 1e-9;
	}
	acct_sample(f.a, end_ns, v);
	t = acct_totals(f.a);
	tap_near(t->it_energy_j, want_j, 1e-9, "IT energy = sum of power x duration of each piece");
	tap_near(t->facility_energy_j, 1.25 * want_j, 1e-9, "facility energy = IT energy x PUE 1.25");
	tap_near(t->it_energy_j, t->gpu_energy_j + t->node_energy_j + t->network_energy_j +
		 t->storage_energy_j, 1e-12, "IT energy = GPU + node + network + storage");
	tap_near(v[0], it_power_w(2, 0), 1e-12, "it_power_w at the end: 2 idle nodes");
	tap_near(v[3], 1.25 * want_j / 3.6e6, 1e-9, "energy_kwh column = facility J / 3.6e6");
	dcgm_mj = v[DCGM0 + 1];	/* TOTAL_ENERGY_CONSUMPTION{pool=all} */
	tap_near(dcgm_mj, t->gpu_energy_j * 1e3, 1e-12,
		 "DCGM total energy (mJ) = integral of GPU power x 1000");
	tap_near(t->carbon_kg, 1.25 * want_j / 3.6e6 * 0.400, 1e-9,
		 "carbon = facility kWh x 0.400 kg/kWh");
	fixture_close(&f);
}

/* steps.cfg: grid 100 g/kWh before 01:00 UTC and 300 after; spot $10 per
 * node-hour before 01:00 and $20 after (zone us-east-1a; the 1b record
 * at $99 is filtered out). */
static void test_steps(void)
{
	struct fixture f;
	struct activity act = held(4, 32);
	struct activity none = { 0 };
	const struct acct_totals *t;
	double p_w = it_power_w(4, 32);		/* PUE 1.1 */
	double kwh_half = 1.1 * p_w * 1800 / 3.6e6;

	if (fixture_open(&f, "steps.cfg", NULL, 0) < 0)
		return;
	acct_set_activity(f.a, 1800 * S, &act);		/* 00:30 to 01:30 */
	acct_set_activity(f.a, 5400 * S, &none);
	acct_advance(f.a, 7200 * S);
	t = acct_totals(f.a);
	tap_near(t->facility_energy_j / 3.6e6, 2 * kwh_half, 1e-12,
		 "one hour at (32 x 330 W + 4 busy DGX A100 hosts + PSU loss + 3,516 W of "
		 "fabric) x 1.1");
	tap_near(t->carbon_kg, kwh_half * 0.100 + kwh_half * 0.300, 1e-12,
		 "carbon splits at the step: half an hour at 100 g, half at 300 g");
	tap_near(t->cost_usd, 4 * (0.5 * 10 + 0.5 * 20), 1e-12,
		 "spot cost splits at the price step: 4 nodes x (0.5 h x $10 + 0.5 h x $20)");
	fixture_close(&f);
}

/* cov.cfg: intensity 100, 200, 300, 400 g/kWh in hours 0-3 (direct column),
 * mean 250.  With power P_h in hour h, carbon(trace) - carbon(mean) =
 * PUE x sum_h P_h x 3600 s x (I_h - 250) = PUE x T x cov(P, I). */
static double carbon_run(const char *const *ov, size_t n_ov, const int *training)
{
	struct fixture f;
	double kg;

	if (fixture_open(&f, "cov.cfg", ov, n_ov) < 0)
		return NAN;
	for (int h = 0; h < 4; h++) {
		struct activity act = held(4, training[h]);
		acct_set_activity(f.a, h * 3600 * S, &act);
	}
	acct_advance(f.a, 4 * 3600 * S);
	kg = acct_totals(f.a)->carbon_kg;
	fixture_close(&f);
	return kg;
}

static void test_covariance(void)
{
	static const int varying[4] = { 32, 0, 8, 24 }, constant[4] = { 16, 16, 16, 16 };
	const char *mean_ov[] = { "carbon.grid_trace=\"\"", "carbon.grid_g_per_kwh=250" };
	double I[4] = { 100, 200, 300, 400 }, P[4], mp = 0, mi = 0, mpi = 0, cov;
	double T_s = 4 * 3600, diff, want;
	struct trace tr;
	struct err e = { 0 };
	char path[4096];

	snprintf(path, sizeof path, "%s/tests/acct/grid-4h.csv", tap_srcdir());
	if (trace_load_csv(&tr, path, TRACE_CARBON, "direct", &e) == 0) {
		tap_ok(tr.n == 4 && tr.step_s == 3600 && tr.v[0] == I[0] && tr.v[1] == I[1] &&
		       tr.v[2] == I[2] && tr.v[3] == I[3],
		       "the trace is 100, 200, 300, 400 g/kWh hourly: mean 250 g/kWh");
		trace_free(&tr);
	} else {
		tap_ok(0, "grid-4h.csv loads: %s", e.msg);
	}
	for (int h = 0; h < 4; h++) {
		P[h] = it_power_w(4, varying[h]);	/* hosts follow the GPUs */
		mp += P[h] / 4;
		mi += I[h] / 4;
		mpi += P[h] * I[h] / 4;
	}
	cov = mpi - mp * mi;	/* W x g/kWh */
	want = 1.2 * T_s * cov / 3.6e6 * 1e-3;
	diff = carbon_run(NULL, 0, varying) - carbon_run(mean_ov, 2, varying);
	tap_diag("cov(P, I) = %.6g W g/kWh; carbon difference %.9g kg", cov, diff);
	tap_near(diff, want, 1e-9, "trace - mean = PUE x T x cov(power, intensity)");
	diff = carbon_run(NULL, 0, constant) - carbon_run(mean_ov, 2, constant);
	tap_ok(fabs(diff) <= 1e-12 * carbon_run(NULL, 0, constant),
	       "constant power: no difference (%.3g kg)", diff);
}

/* Market-based accounting with a contractual factor of 0 (fully matched
 * renewable supply): carbon_kg is 0, the location-based figure unchanged. */
static void test_market(void)
{
	const char *ov[] = { "carbon.basis=\"market\"", "carbon.market_g_per_kwh=0" };
	struct fixture f;
	struct activity act = held(4, 32);
	const struct acct_totals *t;
	double kwh = 1.25 * it_power_w(4, 32) * 3600 / 3.6e6;

	if (fixture_open(&f, "power.cfg", ov, 2) < 0)
		return;
	acct_set_activity(f.a, 0, &act);
	acct_advance(f.a, 3600 * S);
	t = acct_totals(f.a);
	tap_near(t->carbon_location_kg, kwh * 0.400, 1e-12, "location-based: kWh x 400 g");
	tap_near(t->carbon_market_kg, 0, 0, "market-based with a 0 g/kWh contract: 0");
	tap_near(t->carbon_kg, 0, 0, "carbon.basis = market reports the market figure");
	fixture_close(&f);
}

/* With the step model's breakdown: kernels 0.8 of the time (tensor
 * 0.55), their energy 250 W above idle on average, and 0.2 waiting
 * (exposed communication 0.1, bubble 0.1) at the A100's comm_w 68.6 W:
 * 50 + 250 + (68.6 - 50) x 0.2 = 303.72 W (power.h); DCGM utilisation 90%,
 * tensor active 0.55. */
static void test_breakdown(void)
{
	struct fixture f;
	struct activity act = held(4, 32);
	double v[128];

	if (fixture_open(&f, "spot.cfg", NULL, 0) < 0)
		return;
	act.busy_frac = 0.8;
	act.tensor_active_frac = 0.55;
	act.comm_frac = 0.1;
	act.kernel_frac = 0.8;
	act.kernel_dyn_w = 250;
	acct_set_activity(f.a, 0, &act);
	acct_sample(f.a, 10 * S, v);
	tap_near(v[DCGM0 + 0], 32 * 303.72, 1e-12,
		 "DCGM power: 32 GPUs x 303.72 W from the breakdown");
	tap_near(v[DCGM0 + 2], 90, 1e-12, "DCGM GPU_UTIL = (busy + comm) x 100%");
	tap_near(v[DCGM0 + 3], 0.55, 1e-12, "DCGM PIPE_TENSOR_ACTIVE = tensor-active fraction");
	act.kernel_dyn_w = 300;	/* the same time, more work done in it */
	acct_set_activity(f.a, 10 * S, &act);
	acct_sample(f.a, 20 * S, v);
	tap_near(v[DCGM0 + 0], 32 * (50 + 300 + 18.6 * 0.2), 1e-12,
		 "more work, more power: 50 + 300 + 18.6 x 0.2 = 353.72 W");
	fixture_close(&f);
}

/* Hot spares (failures.spares) of an owned cluster are its nodes, powered
 * and idle: 2 spares beside 4 training nodes add 2 x (8 x 50 W + 729 W)
 * / 0.95 = 2,376.8 W of IT power; in the cloud they are the provider's. */
static void test_spares(void)
{
	const char *own[] = { "cost.mode=\"owned\"" };
	struct fixture f;
	struct activity act = held(4, 32);
	double spare_w = 2 * (8 * IDLE_W + HOST_IDLE_W) / PSU_EFF;

	act.spare_nodes = 2;
	if (fixture_open(&f, "power.cfg", own, 1) < 0)
		return;
	acct_set_activity(f.a, 0, &act);
	acct_advance(f.a, 3600 * S);
	tap_near(acct_totals(f.a)->it_energy_j, (it_power_w(4, 32) + spare_w) * 3600, 1e-12,
		 "owned: an hour of 4 training nodes and 2 idle spares (+2,376.8 W)");
	fixture_close(&f);
	if (fixture_open(&f, "power.cfg", NULL, 0) < 0)
		return;
	acct_set_activity(f.a, 0, &act);
	acct_advance(f.a, 3600 * S);
	tap_near(acct_totals(f.a)->it_energy_j, it_power_w(4, 32) * 3600, 1e-12,
		 "cloud: the provider's spares draw nothing of the job's");
	fixture_close(&f);
}

int main(void)
{
	test_spares();
	test_breakdown();
	test_market();
	test_integral();
	test_steps();
	test_covariance();
	return tap_done();
}
