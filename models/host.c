/* host.c -- see host.h. */
#include <math.h>

#include "models/host.h"

double host_issue_s(double kernels, double host_s)
{
	return kernels > 0 && host_s > 0 ? kernels * host_s : 0;
}

void host_bound(struct cmp_cost *pass, double host_s, bool blocking)
{
	double cpu_s = host_issue_s(pass->kernels, host_s);

	if (blocking)
		pass->time_s += cpu_s;
	else if (cpu_s > pass->time_s)
		pass->time_s = cpu_s;
}

void host_sync_bound(struct cmp_cost *pass, const struct cmp_cost *tail,
		     double cover_s, double host_s)
{
	double pre_s = pass->time_s - tail->time_s;
	double pre_kernels = pass->kernels - tail->kernels;

	pass->time_s += fmax(0, host_issue_s(pre_kernels, host_s) - pre_s) +
			fmax(0, host_issue_s(tail->kernels, host_s) - tail->time_s - cover_s);
}
