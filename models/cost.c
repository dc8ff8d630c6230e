/* cost.c -- see cost.h. */
#include <math.h>
#include <string.h>

#include "models/cost.h"
#include "models/region.h"

const struct cfg_setting cost_settings[] = {
	{ "cost.mode", CFG_ENUM, "", 0, 0, "cloud", "cloud|owned",
	  "rent instances (cloud) or own the hardware (TCO)" },
	{ "cost.gpu_hour_usd", CFG_FLOAT, "USD/GPU-h", 0, 1e4, "0", NULL,
	  "fallback price of one GPU-hour for pools with no other price "
	  "(instance price / GPUs per instance)" },
	{ "cost.billing_increment_s", CFG_FLOAT, "s", 0, 86400, "1", NULL,
	  "instance time is billed in these increments (AWS Linux: 1 s; 0: exact)" },
	{ "cost.billing_minimum_s", CFG_FLOAT, "s", 0, 86400, "60", NULL,
	  "least time billed per instance start (AWS Linux: 60 s)" },
	{ "cost.commitments", CFG_ENUM, "", 0, 0, "term", "term|held",
	  "reserved / capacity-block pools: paid for every node until the commitment "
	  "ends (term: capacity blocks in AWS's day/week lengths, reserved for "
	  "pools.*.term_days) or only while held" },
	{ "cost.owned.server_usd", CFG_FLOAT, "USD", 0, 1e9, "0", NULL,
	  "purchase price of one node with its GPUs (DGX H100 ~$199k list, 2023)" },
	{ "cost.owned.network_usd_per_node", CFG_FLOAT, "USD", 0, 1e9, "0", NULL,
	  "each node's share of switches, NICs and cables" },
	{ "cost.owned.service_life_years", CFG_FLOAT, "years", 0.1, 50, "6", NULL,
	  "straight-line amortisation period (BLOOM study's 6-year lifespan)" },
	{ "cost.owned.opex_usd_per_node_hour", CFG_FLOAT, "USD/node-h", 0, 1e6, "0", NULL,
	  "operating cost per node-hour besides electricity (space, support, staff)" },
	{ "cost.electricity_usd_per_kwh", CFG_FLOAT, "USD/kWh", 0, 100, "0.08", NULL,
	  "electricity price for owned mode (US industrial 2023 ~8.0 cents, EIA; "
	  "see scenarios/regions)" },
	{ "cost.electricity_trace", CFG_STRING, "", 0, 0, "", NULL,
	  "hourly electricity price trace (CSV datetime_utc,usd_per_kwh|usd_per_mwh|"
	  "cents_per_kwh), relative to the scenario; overrides the constant" },
	{ "pools.*.price_usd_per_node_hour", CFG_FLOAT, "USD/node-h", 0, 1e6, "0", NULL,
	  "price of one of the pool's nodes for an hour (overrides the catalog)" },
	{ "pools.*.term_days", CFG_FLOAT, "days", 0, 3653, "0", NULL,
	  "reserved pools: length of the commitment (EC2 Reserved Instances and "
	  "Savings Plans: 365 or 1095); 0: the run's length" },
	{ "pools.*.instance", CFG_STRING, "", 0, 0, "", NULL,
	  "instance type in the instances catalog (scenarios/catalog/prices.cfg)" },
	{ "pools.*.spot_price_trace", CFG_STRING, "", 0, 0, "", NULL,
	  "spot pools: AWS describe-spot-price-history JSON, relative to the scenario" },
	{ "pools.*.spot_instance_type", CFG_STRING, "", 0, 0, "", NULL,
	  "InstanceType to read from the spot trace (needed if it holds several)" },
	{ "pools.*.spot_zone", CFG_STRING, "", 0, 0, "", NULL,
	  "AvailabilityZone to read from the spot trace (needed if it holds several)" },
	{ "instances.*.gpu", CFG_STRING, "", 0, 0, "", NULL, "GPU type (gpus catalog)" },
	{ "instances.*.gpus", CFG_INT, "", 1, 1024, NULL, NULL, "GPUs per instance" },
	{ "instances.*.on_demand_usd_per_hour", CFG_FLOAT, "USD/h", 0, 1e6, "0", NULL,
	  "on-demand price of the instance (0: none)" },
	{ "instances.*.reserved_usd_per_hour", CFG_FLOAT, "USD/h", 0, 1e6, "0", NULL,
	  "effective hourly price under a reservation / savings plan (0: none)" },
	{ "instances.*.capacity_block_usd_per_hour", CFG_FLOAT, "USD/h", 0, 1e6, "0", NULL,
	  "capacity-block price (0: none)" },
	{ "instances.*.spot_usd_per_hour", CFG_FLOAT, "USD/h", 0, 1e6, "0", NULL,
	  "typical spot price when no trace is given (0: none)" },
	{ "instances.*.regions", CFG_STRING, "", 0, 0, "", NULL,
	  "where the provider charges these prices (region presets, comma-separated); "
	  "empty: one price everywhere" },
	{ "instances.*.capacity_block_regions", CFG_STRING, "", 0, 0, "", NULL,
	  "where the capacity-block price holds, when not where the others do "
	  "(region presets, comma-separated); empty: regions" },
	{ "instances.*.date", CFG_STRING, "", 0, 0, "", NULL, "when the prices held" },
	{ "instances.*.source", CFG_STRING, "", 0, 0, "", NULL, "where they come from" },
	CFG_END
};

static const char *const class_price_key[] = {
	"on_demand_usd_per_hour", "reserved_usd_per_hour",
	"capacity_block_usd_per_hour", "spot_usd_per_hour",
};

/* One pool's constant price, from the first source that has one. */
/* Is name an item of the comma-separated list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ",")) {
		p += *p == ',';
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

/* A provider that prices by region: the catalog's figure holds only in
 * the regions it names (capacity blocks are sold in their own regions),
 * and a run placed elsewhere must say its price. */
static int price_region_check(const struct scenario *sc, const char *inst,
			      enum pool_class cls, const char *path, struct err *e)
{
	const char *region = sc_str(sc, "region");
	const char *where = sc_str(sc, "instances.%s.regions", inst);
	const char *blocks = sc_str(sc, "instances.%s.capacity_block_regions", inst);

	if (cls == POOL_CAPACITY_BLOCK && blocks[0])
		where = blocks;

	if (!region[0] || !where[0] || in_list(where, region))
		return 0;
	return sc_error(sc, e, path, "%s is priced by region and the catalog has its "
			"price in %s, not in region \"%s\" (expected a region of those, or "
			"the pool's price_usd_per_node_hour)", inst, where, region);
}

static int pool_price(const struct scenario *sc, const struct pool *p, int gpus_per_node,
		      struct pool_price *pp, struct err *e)
{
	const char *inst = sc_str(sc, "pools.%s.instance", p->name);
	bool named = strcmp(p->name, "all") != 0 || sc_has(sc, "pools.all");

	pp->committed = p->cls == POOL_RESERVED || p->cls == POOL_CAPACITY_BLOCK;
	pp->block = p->cls == POOL_CAPACITY_BLOCK;
	pp->term_s = named ? sc_float(sc, "pools.%s.term_days", p->name) * 86400.0 : 0;
	if (pp->term_s > 0 && p->cls != POOL_RESERVED) {
		char path[256];
		snprintf(path, sizeof path, "pools.%s.term_days", p->name);
		return sc_error(sc, e, path, "a commitment term for a %s pool (expected "
				"class = \"reserved\"; capacity blocks last as long as "
				"the run, rounded to the lengths AWS sells)",
				pool_class_names[p->cls]);
	}
	pp->spot_trace = named ? sc_str(sc, "pools.%s.spot_price_trace", p->name) : "";
	pp->spot_type = named ? sc_str(sc, "pools.%s.spot_instance_type", p->name) : "";
	pp->spot_zone = named ? sc_str(sc, "pools.%s.spot_zone", p->name) : "";
	if (pp->spot_trace[0] && p->cls != POOL_SPOT) {
		char path[256];
		snprintf(path, sizeof path, "pools.%s.spot_price_trace", p->name);
		return sc_error(sc, e, path, "a spot price trace for a %s pool (expected "
				"class = \"spot\")", pool_class_names[p->cls]);
	}
	if (named && sc_has(sc, "pools.%s.price_usd_per_node_hour", p->name)) {
		pp->usd_per_node_hour = sc_float(sc, "pools.%s.price_usd_per_node_hour", p->name);
		return 0;
	}
	if (pp->spot_trace[0])
		return 0;
	if (named && inst[0]) {
		char path[256];
		snprintf(path, sizeof path, "pools.%s.instance", p->name);
		if (!sc_has_child(sc, "instances", inst))
			return sc_error(sc, e, path, "no instance type \"%s\" in the instances "
					"catalog (expected an entry of scenarios/catalog/"
					"prices.cfg)", inst);
		if (sc_str(sc, "instances.%s.gpu", inst)[0] &&
		    strcmp(sc_str(sc, "instances.%s.gpu", inst), sc_str(sc, "cluster.gpu")) != 0)
			return sc_error(sc, e, path, "%s has %s GPUs but the cluster has %s "
					"(expected an instance of cluster.gpu)", inst,
					sc_str(sc, "instances.%s.gpu", inst),
					sc_str(sc, "cluster.gpu"));
		if ((int)sc_int(sc, "instances.%s.gpus", inst) != gpus_per_node)
			return sc_error(sc, e, path, "%s has %d GPUs but nodes have %d "
					"(expected cluster.gpus_per_node = instance GPUs)", inst,
					(int)sc_int(sc, "instances.%s.gpus", inst), gpus_per_node);
		if (price_region_check(sc, inst, p->cls, path, e) < 0)
			return -1;
		pp->usd_per_node_hour = sc_float(sc, "instances.%s.%s", inst,
						 class_price_key[p->cls]);
		if (pp->usd_per_node_hour <= 0)
			return sc_error(sc, e, path, "%s has no %s price in the catalog "
					"(expected instances.%s.%s)", inst,
					pool_class_names[p->cls], inst, class_price_key[p->cls]);
		return 0;
	}
	if (sc_has(sc, "cost.gpu_hour_usd")) {
		pp->usd_per_node_hour = sc_float(sc, "cost.gpu_hour_usd") * gpus_per_node;
		return 0;
	}
	return sc_error(sc, e, named ? "pools" : "cost", "no price for pool %s (expected "
			"pools.%s.price_usd_per_node_hour, pools.%s.instance or "
			"cost.gpu_hour_usd)", p->name, p->name, p->name);
}

int cost_from_scenario(const struct scenario *sc, const struct pools *pools,
		       int gpus_per_node, struct cost *c, struct err *e)
{
	memset(c, 0, sizeof *c);
	c->mode = strcmp(sc_str(sc, "cost.mode"), "owned") == 0 ? COST_OWNED : COST_CLOUD;
	c->increment_s = sc_float(sc, "cost.billing_increment_s");
	c->minimum_s = sc_float(sc, "cost.billing_minimum_s");
	c->server_usd = sc_float(sc, "cost.owned.server_usd");
	c->network_usd_per_node = sc_float(sc, "cost.owned.network_usd_per_node");
	c->life_s = sc_float(sc, "cost.owned.service_life_years") * 365.25 * 86400;
	c->opex_usd_per_node_s = sc_float(sc, "cost.owned.opex_usd_per_node_hour") / 3600;
	c->electricity_usd_per_kwh = region_float(sc, "cost.electricity_usd_per_kwh",
						  "electricity_usd_per_kwh");
	c->electricity_trace = sc_str(sc, "cost.electricity_trace");
	if (c->mode == COST_OWNED)
		return 0;
	for (int i = 0; i < pools->n; i++) {
		if (pool_price(sc, &pools->p[i], gpus_per_node, &c->pool[i], e) < 0)
			return -1;
		if (strcmp(sc_str(sc, "cost.commitments"), "held") == 0)
			c->pool[i].committed = false;
	}
	return 0;
}

double cost_billed_s(const struct cost *c, int64_t held_ns)
{
	int64_t inc_ns = (int64_t)(c->increment_s * 1e9 + 0.5);
	int64_t billed_ns = held_ns;

	if (inc_ns > 0)
		billed_ns = (held_ns + inc_ns - 1) / inc_ns * inc_ns;
	if (billed_ns * 1e-9 < c->minimum_s)
		return c->minimum_s;
	return billed_ns * 1e-9;
}

/* AWS sells capacity blocks of 1 to 14 days in whole days and up to 182
 * days in whole weeks; a longer run books consecutive blocks. */
static double block_s(double held_s)
{
	const double day_s = 86400.0, week_s = 7 * day_s, max_s = 182 * day_s;
	double full_s = floor(held_s / max_s) * max_s, rest_s = held_s - full_s;

	if (rest_s <= 0)
		return full_s;
	if (rest_s <= 14 * day_s)
		return full_s + ceil(rest_s / day_s) * day_s;
	return full_s + ceil(rest_s / week_s) * week_s;
}

double cost_pool_billed_s(const struct cost *c, int pool, int64_t held_ns)
{
	const struct pool_price *pp = &c->pool[pool];
	/* whole seconds, so that a day held is not a day and a nanosecond */
	double held_s = (double)((held_ns + 999999999) / 1000000000);

	if (!pp->committed)
		return cost_billed_s(c, held_ns);
	if (pp->block)
		return block_s(held_s);
	return pp->term_s > held_s ? pp->term_s : cost_billed_s(c, held_ns);
}
