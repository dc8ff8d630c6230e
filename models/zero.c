/* zero.c -- see zero.h. */
#include "models/zero.h"

void zero_model_memory(double psi, int n_d, int stage, bool dist_opt,
		       struct zero_mem *out)
{
	double nd = n_d;

	if (dist_opt && stage < 1)
		stage = 1;
	out->weights_bytes = stage >= 3 ? 2.0 * psi / nd : 2.0 * psi;
	out->grads_bytes = stage >= 2 ? 2.0 * psi / nd : 2.0 * psi;
	out->optimizer_bytes = stage >= 1 ? 12.0 * psi / nd : 12.0 * psi;
}

double zero_comm_elems(double psi, int stage, bool dist_opt, int microbatches)
{
	double m = microbatches;

	if (dist_opt && stage < 1)
		stage = 1;
	switch (stage) {
	case 0:
	case 1:
		return 2.0 * psi;
	case 2:
		return (m + 1.0) * psi;
	default:
		return 3.0 * m * psi;
	}
}
