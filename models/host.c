/* host.c -- see host.h. */
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
