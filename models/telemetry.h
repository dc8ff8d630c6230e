/*
 * telemetry.h -- DCGM-named time series per node pool, as dcgm-exporter
 * dashboards show them, from accounting's rates.
 *
 * Columns, for each pool NAME (Prometheus-style label in the name):
 *   DCGM_FI_DEV_POWER_USAGE{pool=NAME}               W, summed over the pool's GPUs
 *   DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{pool=NAME}  mJ, summed, monotonic
 *   DCGM_FI_DEV_GPU_UTIL{pool=NAME}                  %, mean over held GPUs
 *   DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{pool=NAME}       ratio, mean over held GPUs
 * (field names and units: NVIDIA/DCGM dcgmlib/dcgm_fields.h, 2026-07, the
 * legacy names dcgm-exporter uses; doc/sources.md section 7).  Power is the value in
 * force at the sample; energy is its exact integral, so the two agree:
 * delta E [mJ] = integral of P dt x 1000.  Training GPUs are spread over the
 * pools in proportion to the nodes each holds.  GPU_UTIL counts a GPU busy
 * whenever a kernel is resident (compute or communication): 100% while
 * training without a step-model breakdown, (busy + comm) x 100% with one,
 * 0 when idle.  TENSOR_ACTIVE is the step model's tensor-active fraction,
 * NaN while it gives none (we do not guess it).
 */
#ifndef MODELS_TELEMETRY_H
#define MODELS_TELEMETRY_H

#include <stdbool.h>

#include "sim/report.h"
#include "models/pool.h"

#define TELEMETRY_PER_POOL 4

struct telemetry_pool {
	double gpus_held, gpus_training;
	double gpu_power_w;	/* in force now */
	double gpu_energy_j;	/* so far */
};

struct telemetry_util {
	double busy_frac, comm_frac, tensor_active_frac;	/* 0: unknown */
};

int telemetry_series(const struct pools *pools, struct report *rep);
int telemetry_columns(const struct pools *pools);
void telemetry_sample(const struct pools *pools, const struct telemetry_pool *p,
		      const struct telemetry_util *u, double *v);

#endif
