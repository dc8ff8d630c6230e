/*
 * cost.h -- what the run costs: cloud instance-hours per pool and pricing
 * class, or owned hardware (TCO), plus checkpoint storage (storage.h).
 *
 * Cloud mode (cost.mode = "cloud"): each pool's nodes are instances billed
 * per second while held, at a price per node-hour found in this order:
 *   pools.NAME.price_usd_per_node_hour            (explicit)
 *   pools.NAME.spot_price_trace                   (spot pools: AWS JSON trace)
 *   instances.TYPE.<class>_usd_per_hour           (pools.NAME.instance = TYPE,
 *                                                  scenarios/catalog/prices.cfg)
 *   cost.gpu_hour_usd x cluster.gpus_per_node     (one price for every class)
 * Billing: each instance's held time is rounded up to cost.billing_increment_s
 * with a minimum of cost.billing_minimum_s (AWS EC2 Linux: per second, 60 s
 * minimum, since 2017-10-02).  Instances released first are the ones started
 * last.  Reserved and capacity-block pools are commitments.  With
 * cost.commitments = "term" (default) every node of the pool is paid from the
 * run's first second to the end of its commitment, held or not, and past the
 * run's end if the commitment outlasts it:
 *   capacity_block  the run's length rounded up to the lengths AWS sells:
 *                   whole days up to 14 days, whole weeks up to 182 days,
 *                   longer runs as consecutive blocks each so rounded (EC2
 *                   User Guide, "Capacity Blocks for ML", find and purchase;
 *                   the price is charged up front);
 *   reserved        pools.NAME.term_days, when set (an EC2 Reserved Instance
 *                   or Savings Plan is a 1- or 3-year term: 365 or 1095),
 *                   else the run's length.
 * The part paid after the run ended is /summary cost_commitment_unused_usd.
 * "held" bills committed nodes like on-demand, only while held: the
 * commitment's unused time is someone else's work.  Whether a waiting or restarting job keeps its instances is the
 * run model's choice (struct activity's nodes held); held nodes are paid.
 * A spot price holds from its record until the next (no hourly lock).
 *
 * Owned mode (cost.mode = "owned"): per held node, the purchase price of the
 * server (GPUs included) and its share of network, amortised linearly over
 * cost.owned.service_life_years, plus cost.owned.opex_usd_per_node_hour
 * (space, maintenance, staff); plus electricity: facility energy x a price
 * (constant cost.electricity_usd_per_kwh or an hourly trace).
 */
#ifndef MODELS_COST_H
#define MODELS_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/pool.h"

enum cost_mode { COST_CLOUD, COST_OWNED };

struct pool_price {
	double usd_per_node_hour;	/* constant price (unless a spot trace) */
	bool committed;			/* billed for all nodes, the whole term */
	bool block;			/* a capacity block: AWS's lengths */
	double term_s;			/* reserved: commitment length, 0 = the run */
	const char *spot_trace;		/* "" if none */
	const char *spot_type, *spot_zone;
};

struct cost {
	enum cost_mode mode;
	double increment_s, minimum_s;
	struct pool_price pool[POOLS_MAX];
	/* owned */
	double server_usd, network_usd_per_node, life_s, opex_usd_per_node_s;
	double electricity_usd_per_kwh;
	const char *electricity_trace;
};

extern const struct cfg_setting cost_settings[];
int cost_from_scenario(const struct scenario *sc, const struct pools *pools,
		       int gpus_per_node, struct cost *c, struct err *e);
/* Seconds billed for an instance held held_s seconds. */
double cost_billed_s(const struct cost *c, int64_t held_ns);
/* Seconds billed for an instance of pool `pool` held held_ns: its
 * commitment's length where the pool is committed, else cost_billed_s. */
double cost_pool_billed_s(const struct cost *c, int pool, int64_t held_ns);

#endif
