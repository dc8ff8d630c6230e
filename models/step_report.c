/*
 * step_report.c -- one iteration's result: its breakdown into the report's
 * /step group (the times (s), fractions, peak memory, FLOPs, and the bytes
 * per link tier as a vector labelled by tier name), and the result between
 * two that differ in microbatches only (step_result_lerp).
 */
#include <math.h>

#include "models/step.h"
#include "sim/report.h"

static double lerp(double a, double b, double w)
{
	return a + w * (b - a);
}

void step_result_lerp(const struct step_result *a, const struct step_result *b, double w,
		      struct step_result *out)
{
	struct step_result x = *a;

	x.iteration_s = lerp(a->iteration_s, b->iteration_s, w);
	x.compute_s = lerp(a->compute_s, b->compute_s, w);
	x.tp_exposed_s = lerp(a->tp_exposed_s, b->tp_exposed_s, w);
	x.pp_exposed_s = lerp(a->pp_exposed_s, b->pp_exposed_s, w);
	x.dp_exposed_s = lerp(a->dp_exposed_s, b->dp_exposed_s, w);
	x.bubble_s = lerp(a->bubble_s, b->bubble_s, w);
	x.optimizer_s = lerp(a->optimizer_s, b->optimizer_s, w);
	x.flops_per_iter = lerp(a->flops_per_iter, b->flops_per_iter, w);
	x.dp_comm_elems_per_rank = lerp(a->dp_comm_elems_per_rank, b->dp_comm_elems_per_rank, w);
	x.events = (uint64_t)llround(lerp((double)a->events, (double)b->events, w));
	for (size_t i = 0; i < x.n_tiers && i < b->n_tiers; i++)
		x.tier_bytes[i] = lerp(a->tier_bytes[i], b->tier_bytes[i], w);
	if (x.iteration_s > 0) {
		x.busy_frac = lerp(a->busy_frac * a->iteration_s, b->busy_frac * b->iteration_s,
				   w) / x.iteration_s;
		x.tensor_active_frac = lerp(a->tensor_active_frac * a->iteration_s,
					    b->tensor_active_frac * b->iteration_s, w) /
				       x.iteration_s;
		x.kernel_dyn_w = lerp(a->kernel_dyn_w * a->iteration_s,
				      b->kernel_dyn_w * b->iteration_s, w) / x.iteration_s;
	}
	if (a->flops_per_iter > 0 && x.iteration_s > 0) {	/* both per GPU-second */
		double r = x.flops_per_iter / a->flops_per_iter * a->iteration_s / x.iteration_s;
		x.tflops_per_gpu = a->tflops_per_gpu * r;
		x.mfu = a->mfu * r;
	}
	x.peak_memory_bytes = fmax(a->peak_memory_bytes, b->peak_memory_bytes);
	*out = x;
}

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
	rep_step_scalar(r, "host_issue_frac", s->host_issue_frac, "");
	rep_step_scalar(r, "layer_fwd_s", s->layer_fwd_s, "s");
	rep_step_scalar(r, "layer_fwd_tensor_s", s->layer_fwd_tensor_s, "s");
	rep_step_scalar(r, "layer_fwd_comm_s", s->layer_fwd_comm_s, "s");
	rep_step_scalar(r, "layer_bwd_s", s->layer_bwd_s, "s");
	rep_step_scalar(r, "layer_bwd_tensor_s", s->layer_bwd_tensor_s, "s");
	rep_step_scalar(r, "layer_bwd_comm_s", s->layer_bwd_comm_s, "s");
	rep_step_scalar(r, "logits_fwd_s", s->logits_fwd_s, "s");
	rep_step_scalar(r, "logits_bwd_s", s->logits_bwd_s, "s");
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
