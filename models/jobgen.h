/*
 * jobgen.h -- where the jobs of trainsim cluster come from: job classes
 * (a generator of Poisson arrivals with sizes and durations drawn from the
 * class's distributions), an inline list, and a trace (models/swf.h).
 *
 * A class or an inline job is either fixed (its duration given or drawn)
 * or a training run: `scenario` names a run scenario (relative to the
 * cluster file) whose GPUs and undisturbed time come from the run model's
 * pace (models/pace.h through run_job_shape), computed once per scenario
 * file, plus the stalls of the checkpoints it writes on the way.  Teams may
 * carry a budget that raises an alert when crossed.
 *
 * The generator's defaults, their sources and what is assumed:
 *   arrivals_per_hour 53.3  measured: AcmeTrace holds 470,497 GPU jobs
 *       submitted to 2 clusters from March to August 2023 (184 days):
 *       470,497 / (2 x 184 x 24 h) = 53.3 per cluster-hour (Hu et al.,
 *       "Characterization of Large Language Model Development in the
 *       Datacenter", NSDI'24; github.com/InternLM/AcmeTrace README).
 *   duration_median_s 600, duration_sigma 1.5 (lognormal)  assumed: the
 *       Acme study finds LLM-development jobs shorter than those of earlier
 *       deep-learning traces, most of them evaluation, and pretraining's
 *       reservations delaying them (Hu et al. NSDI'24); Philly (Jeon et al.,
 *       ATC'19: 117,325 jobs, 2017-08-07 to 2017-12-22,
 *       github.com/msr-fiddle/philly-traces) and Alibaba PAI (Weng et al.,
 *       "MLaaS in the Wild", NSDI'22: two months on 6,742 GPUs,
 *       github.com/alibaba/clusterdata cluster-trace-gpu-v2020) show run
 *       times from minutes to days.  The median and sigma are not fitted to
 *       any of these traces: fit them to your own (or replay it with
 *       workload.trace).
 *   gpus [1]  assumed: a class of single-GPU jobs unless told otherwise.
 */
#ifndef MODELS_JOBGEN_H
#define MODELS_JOBGEN_H

#include <stdint.h>

#include "sim/cfg.h"
#include "models/cjob.h"

struct jobgen_budget {
	double usd;			/* 0: none */
};

extern const struct cfg_setting jobgen_settings[];
/* Fill js with every job of the scenario, sorted by submit time; the
 * fleet's GPU type and node size check the training jobs. */
int jobgen_from_scenario(const struct scenario *sc, const char *gpu, int gpus_per_node,
			 uint64_t seed, struct cjobs *js, struct err *e);
/* The workload's length (the generator's horizon), s. */
double jobgen_days_s(const struct scenario *sc);

#endif
