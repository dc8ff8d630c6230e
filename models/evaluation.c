/* evaluation.c -- see evaluation.h. */
#include <math.h>
#include <string.h>

#include "models/evaluation.h"

const struct cfg_setting evl_settings[] = {
	{ "training.eval_interval_iters", CFG_INT, "iterations", 0, 1e12, "0", NULL,
	  "iterations between two evaluations on held-out data (Megatron-LM "
	  "--eval-interval, whose own default is 1000; NeMo val_check_interval); "
	  "0: the run does not evaluate" },
	{ "training.eval_iters", CFG_INT, "batches", 1, 1e9, "100", NULL,
	  "forward-only global batches per evaluation (Megatron-LM --eval-iters, "
	  "default 100; NeMo limit_val_batches); with several validation sets, "
	  "their sum" },
	CFG_END
};

void evl_from_scenario(const struct scenario *sc, struct evl *v)
{
	memset(v, 0, sizeof *v);
	v->every_iters = sc_int(sc, "training.eval_interval_iters");
	v->eval_iters = sc_int(sc, "training.eval_iters");
}

double evl_batch_s(const struct step_result *st, double compute_s, double exec_flops,
		   double fwd_flops, int m, double fill_slots)
{
	double f = exec_flops > 0 ? fwd_flops / exec_flops : 0;

	if (st == NULL || m < 1)
		return compute_s * f;
	return (st->compute_s + st->tp_exposed_s + st->pp_exposed_s) / m * f *
	       (m + fmax(0, fill_slots));
}

double evl_pause_s(const struct evl *v, double batch_s)
{
	if (v == NULL || v->every_iters <= 0)
		return 0;
	return (double)v->eval_iters * batch_s;
}
