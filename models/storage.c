/* storage.c -- see storage.h. */
#include "models/storage.h"

const struct cfg_setting storage_settings[] = {
	{ "storage.tiers.*.usd_per_gb_month", CFG_FLOAT, "USD/GB-month", 0, 1e4, NULL, NULL,
	  "price of keeping a GB for a month (S3 Standard us-east-1: 0.023, 2024)" },
	{ "storage.tiers.*.w_per_tb", CFG_FLOAT, "W/TB", 0, 1e5, "0", NULL,
	  "power per TB held (drives, servers)" },
	{ "storage.tiers.*.retain", CFG_INT, "checkpoints", 0, 1e9, "0", NULL,
	  "newest checkpoints kept (0: all)" },
	{ "storage.tiers.*.usd_per_gb_written", CFG_FLOAT, "USD/GB", 0, 1e4, "0", NULL,
	  "price of writing a GB (request charges: S3 PUTs of 8 MiB parts, 0.0006)" },
	{ "training.checkpoint.keep", CFG_INT, "checkpoints", 0, 1e9, "0", NULL,
	  "newest checkpoints kept on the checkpoint storage (0: all, as Megatron-LM); "
	  "what its catalog prices are paid on" },
	CFG_END
};

/* storage_types.NAME's prices, when the checkpoint goes there. */
const struct cfg_setting storage_price_settings[] = {
	{ "storage_types.*.usd_per_gb_month", CFG_FLOAT, "USD/GB-month", 0, 1e4, "0", NULL,
	  "price of holding a GB of checkpoints a month (0: not billed per byte held)" },
	{ "storage_types.*.usd_per_gb_written", CFG_FLOAT, "USD/GB", 0, 1e4, "0", NULL,
	  "price of writing a GB (request charges; 0: none)" },
	CFG_END
};

/* The checkpoint's storage type as a tier, when the catalog prices it. */
static void checkpoint_tier(const struct scenario *sc, struct storage *s)
{
	const char *t = sc_str(sc, "training.checkpoint.storage");
	struct storage_tier *tier;
	double month, written;

	if (!t[0] || !sc_has_child(sc, "storage_types", t) || s->n == STORAGE_TIERS_MAX)
		return;
	month = sc_float(sc, "storage_types.%s.usd_per_gb_month", t);
	written = sc_float(sc, "storage_types.%s.usd_per_gb_written", t);
	if (month <= 0 && written <= 0)
		return;
	tier = &s->t[s->n++];
	tier->name = t;
	tier->usd_per_gb_month = month;
	tier->usd_per_gb_written = written;
	tier->w_per_tb = 0;
	tier->retain = sc_int(sc, "training.checkpoint.keep");
}

void storage_from_scenario(const struct scenario *sc, struct storage *s)
{
	const char *const *names;
	size_t n = sc_children(sc, "storage.tiers", &names);

	s->n = 0;
	for (size_t i = 0; i < n && i < STORAGE_TIERS_MAX; i++) {
		struct storage_tier *t = &s->t[s->n++];
		t->name = names[i];
		t->usd_per_gb_month = sc_float(sc, "storage.tiers.%s.usd_per_gb_month", names[i]);
		t->w_per_tb = sc_float(sc, "storage.tiers.%s.w_per_tb", names[i]);
		t->retain = sc_int(sc, "storage.tiers.%s.retain", names[i]);
		t->usd_per_gb_written = sc_float(sc, "storage.tiers.%s.usd_per_gb_written",
						 names[i]);
	}
	checkpoint_tier(sc, s);
}

double storage_held_bytes(const struct storage *s, int i, double bytes, int64_t written)
{
	int64_t kept = written;

	if (s->t[i].retain > 0 && kept > s->t[i].retain)
		kept = s->t[i].retain;
	return (double)kept * bytes;
}

double storage_usd_per_checkpoint(const struct storage *s, double bytes, double run_s)
{
	double usd = 0;

	for (int i = 0; i < s->n; i++) {
		usd += bytes / 1e9 * s->t[i].usd_per_gb_written;
		if (s->t[i].retain == 0)
			usd += bytes / 1e9 * s->t[i].usd_per_gb_month * (run_s / 2) /
			       STORAGE_MONTH_S;
	}
	return usd;
}
