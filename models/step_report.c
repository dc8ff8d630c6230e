/*
 * step_report.c -- one iteration's breakdown into the report's /step
 * group: the times (s), fractions, peak memory, FLOPs, and the bytes per
 * link tier as a vector labelled by tier name.
 */
#include "models/step.h"
#include "sim/report.h"

int step_report(struct report *r, const struct step_result *s, struct err *e)
{
	rep_step_scalar(r, "iteration_s", s->iteration_s, "s");
	rep_step_scalar(r, "compute_s", s->compute_s, "s");
	rep_step_scalar(r, "tp_exposed_s", s->tp_exposed_s, "s");
	rep_step_scalar(r, "pp_exposed_s", s->pp_exposed_s, "s");
	rep_step_scalar(r, "dp_exposed_s", s->dp_exposed_s, "s");
	rep_step_scalar(r, "bubble_s", s->bubble_s, "s");
	rep_step_scalar(r, "optimizer_s", s->optimizer_s, "s");
	rep_step_scalar(r, "busy_frac", s->busy_frac, "");
	rep_step_scalar(r, "tensor_active_frac", s->tensor_active_frac, "");
	rep_step_scalar(r, "kernel_dyn_w", s->kernel_dyn_w, "W");
	rep_step_scalar(r, "peak_memory_bytes", s->peak_memory_bytes, "bytes");
	rep_step_scalar(r, "flops_per_iter", s->flops_per_iter, "FLOP");
	rep_step_scalar(r, "tflops_per_gpu", s->tflops_per_gpu, "TFLOP/s");
	rep_step_scalar(r, "mfu", s->mfu, "");
	if (s->n_tiers == 0)
		return 0;
	if (rep_step_vector(r, "tier_bytes", s->tier_bytes, s->n_tiers, "bytes", e) < 0)
		return -1;
	return rep_step_labels(r, "tier_names", s->tier_names, s->n_tiers, e);
}
