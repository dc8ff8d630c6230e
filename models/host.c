/* host.c -- see host.h. */
#include <math.h>

#include "models/host.h"

double host_issue_s(double kernels, double lib_kernels, const struct host_cost *h)
{
	double lib = fmin(fmax(lib_kernels, 0), fmax(kernels, 0));

	return kernels > 0 ? (kernels - lib) * fmax(h->op_s, 0) + lib * fmax(h->launch_s, 0) : 0;
}

void host_bound(struct cmp_cost *pass, const struct host_cost *h, bool blocking)
{
	double cpu_s = host_issue_s(pass->kernels, pass->lib_kernels, h);

	if (blocking)
		pass->time_s += cpu_s;
	else if (cpu_s > pass->time_s)
		pass->time_s = cpu_s;
}

void host_sync_bound(struct cmp_cost *pass, const struct cmp_cost *tail,
		     double cover_s, const struct host_cost *h)
{
	double pre_s = pass->time_s - tail->time_s;
	double pre_kernels = pass->kernels - tail->kernels;
	double pre_lib = pass->lib_kernels - tail->lib_kernels;

	pass->time_s += fmax(0, host_issue_s(pre_kernels, pre_lib, h) - pre_s) +
			fmax(0, host_issue_s(tail->kernels, tail->lib_kernels, h) -
			     tail->time_s - cover_s);
}
