/*
 * step_memory.c -- the scenario's memory check: the peak per GPU
 * (memory.h) against the GPU's HBM, as a scenario error with the breakdown
 * when it does not fit, and the breakdown as `--check` prints it.
 */
#include <stdbool.h>
#include <stdio.h>

#include "models/step.h"

#define GB 1e9

static void breakdown_text(const struct mem_breakdown *b, char *buf, size_t n)
{
	snprintf(buf, n, "stage %d: weights %.2f GB, gradients %.2f GB, optimizer "
		 "%.2f GB, activations %.2f GB, step transients %.2f GB, reserve "
		 "%.2f GB, total %.2f GB", b->stage, b->weights_bytes / GB,
		 b->grads_bytes / GB, b->optimizer_bytes / GB,
		 b->activations_bytes / GB, b->step_temp_bytes / GB,
		 b->reserve_bytes / GB, b->total_bytes / GB);
}

void step_print_memory(FILE *f, const struct mem_breakdown *b, double hbm_bytes)
{
	fprintf(f, "memory per GPU (pipeline stage %d, %.3g parameters):\n",
		b->stage, b->params);
	fprintf(f, "  weights       %8.2f GB\n", b->weights_bytes / GB);
	fprintf(f, "  gradients     %8.2f GB\n", b->grads_bytes / GB);
	fprintf(f, "  optimizer     %8.2f GB\n", b->optimizer_bytes / GB);
	fprintf(f, "  activations   %8.2f GB\n", b->activations_bytes / GB);
	fprintf(f, "  step temps    %8.2f GB (the optimizer step's, in the "
		"activations' place; the larger counts)\n", b->step_temp_bytes / GB);
	fprintf(f, "  reserve       %8.2f GB\n", b->reserve_bytes / GB);
	fprintf(f, "  total         %8.2f GB of %.2f GB HBM\n", b->total_bytes / GB,
		hbm_bytes / GB);
}

int step_check_memory(const struct step_cfg *c, const struct tfm *m,
		      const struct layout *L, const struct gpu_spec *g,
		      struct mem_breakdown *out, struct err *e)
{
	struct mem_breakdown b;
	char text[512];

	if (par_check(c->where, m, L, &c->par, e) < 0)
		return -1;
	mem_peak(m, L, &c->par, &b);
	if (out)
		*out = b;
	if (b.total_bytes > g->hbm_bytes) {
		/* what would shrink the peak depends on which moment it is */
		bool at_step = b.step_temp_bytes > b.activations_bytes;
		breakdown_text(&b, text, sizeof text);
		return sc_where_error(c->where, e, "cluster.gpu", "the job does not "
				      "fit in %s's %.2f GB of HBM (%s; expected %s)",
				      g->name, g->hbm_bytes / GB, text, at_step ?
				      "an optimizer step without its transients (a fused "
				      "Adam), more tp/pp or a higher ZeRO stage: the step "
				      "is the peak" :
				      "a smaller micro_batch, more recomputation, more "
				      "tp/pp or a ZeRO stage");
	}
	return 0;
}

