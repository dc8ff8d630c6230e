/* storage.c -- see storage.h. */
#include "models/storage.h"

const struct cfg_setting storage_settings[] = {
	{ "storage.tiers.*.usd_per_gb_month", CFG_FLOAT, "USD/GB-month", 0, 1e4, NULL, NULL,
	  "price of keeping a GB for a month (S3 Standard us-east-1: 0.023, 2024)" },
	{ "storage.tiers.*.w_per_tb", CFG_FLOAT, "W/TB", 0, 1e5, "0", NULL,
	  "power per TB held (drives, servers)" },
	{ "storage.tiers.*.retain", CFG_INT, "checkpoints", 0, 1e9, "0", NULL,
	  "newest checkpoints kept (0: all)" },
	CFG_END
};

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
	}
}

double storage_held_bytes(const struct storage *s, int i, double bytes, int64_t written)
{
	int64_t kept = written;

	if (s->t[i].retain > 0 && kept > s->t[i].retain)
		kept = s->t[i].retain;
	return (double)kept * bytes;
}
