/*
 * storage.h -- checkpoint storage: what keeping checkpoints costs and draws.
 *
 *   storage = { tiers = {
 *     lustre = { usd_per_gb_month = 0.14; w_per_tb = 5.0; retain = 2; };
 *     s3     = { usd_per_gb_month = 0.023; retain = 0; };    # 0: keep all
 *   }; };
 *
 * Every checkpoint written goes to every tier; a tier keeps the newest
 * `retain` of them (0: all), so it holds min(written, retain) x checkpoint
 * bytes (GB = 10^9 bytes).  Cost is GB-months held, a month being 730 hours
 * as AWS bills GB-months; power is W per TB held (the tier's share of
 * drives and servers).  In owned mode (cost.h) the price stands for the
 * amortised cost of the capacity.  Checkpoints outlive the run in a real
 * account: the figures here cover only the run's own duration.  No tiers:
 * no storage.
 *
 * The checkpoint's own storage type (training.checkpoint.storage, a
 * storage_types catalog entry) is a tier too when the catalog prices it:
 * usd_per_gb_month on the bytes it holds (object stores bill what is
 * stored) and usd_per_gb_written on every checkpoint written (request
 * charges), keeping training.checkpoint.keep checkpoints (0: all, as
 * Megatron-LM and DeepSpeed delete none).  A provisioned file system
 * (FSx for Lustre) bills its capacity whatever it holds: a fixed cost of
 * the cluster, not of the checkpoints, so its catalog entry prices 0.
 */
#ifndef MODELS_STORAGE_H
#define MODELS_STORAGE_H

#include <stdint.h>

#include "sim/cfg.h"

#define STORAGE_TIERS_MAX 8
#define STORAGE_MONTH_S (730.0 * 3600.0)

struct storage_tier {
	const char *name;
	double usd_per_gb_month, usd_per_gb_written, w_per_tb;
	int64_t retain;
};

struct storage {
	int n;
	struct storage_tier t[STORAGE_TIERS_MAX];
};

extern const struct cfg_setting storage_settings[];
extern const struct cfg_setting storage_price_settings[];
/* The tiers, then the checkpoint's storage type when it is priced (a type
 * the catalog lacks is checkpoint.c's error, not looked at here). */
void storage_from_scenario(const struct scenario *sc, struct storage *s);
/* Bytes tier i holds after `written` checkpoints of `bytes` each. */
double storage_held_bytes(const struct storage *s, int i, double bytes, int64_t written);
/* What one more checkpoint of `bytes` costs over a run of run_s, for
 * choosing the interval: its writes, and its holding where a tier keeps
 * every checkpoint (written at a uniform time in the run, each is held
 * run_s / 2 on average).  A tier that keeps the newest k costs k x bytes
 * held whatever the interval, so it adds nothing here. */
double storage_usd_per_checkpoint(const struct storage *s, double bytes, double run_s);

#endif
