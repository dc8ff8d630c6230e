/*
 * h200-power.h -- the H200's measured board power, read from the table the
 * GPU catalog's figures come from (scenarios/catalog/kernels/h200_sxm/
 * power.tsv: idle, back-to-back 8192^3 bf16 GEMMs, 2 GiB copies), for the
 * tests that hold the catalog and the kernel power law to it.
 */
#ifndef TESTS_H200_POWER_H
#define TESTS_H200_POWER_H

#include <stdio.h>
#include <string.h>

#include "tests/tap.h"

/* The mean of one phase (-1: not there). */
static double measured_w(const char *phase)
{
	char path[4096], line[512], name[64];
	double w = -1, v;
	FILE *f;

	snprintf(path, sizeof path, "%s/scenarios/catalog/kernels/h200_sxm/power.tsv",
		 tap_srcdir());
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f))
		if (line[0] != '#' && sscanf(line, "%63s %lf", name, &v) == 2 &&
		    strcmp(name, phase) == 0)
			w = v;
	fclose(f);
	return w;
}

#endif
