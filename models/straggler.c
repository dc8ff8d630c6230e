/*
 * straggler.c -- the slowest of N (see straggler.h).
 *
 * Default spread: Sinha et al., "Not All GPUs Are Created Equal:
 * Characterizing Variability in Large-Scale, Accelerator-Rich Systems",
 * SC'22 (arXiv:2208.11035, 2022): on Summit, Vortex, Longhorn and Frontera
 * (V100) and Corona (MI60), GPUs of one SKU differ by 8% on average in
 * performance (max 22%), the same for compute-bound SGEMM and the ML
 * workloads, outliers up to 1.5x slower than the median set apart.  The
 * variation is the span of Tukey's fences over the median, (Q3 + 1.5 IQR)
 * - (Q1 - 1.5 IQR) = 4 IQR (the paper's artifact computes it so:
 * github.com/hal-uw/gpu_variability_sc22_artifact,
 * plot_script/plot_aggregated.py), which for a normal spread is 4 x 1.349
 * sigma = 5.396 sigma: sigma = 0.08 / 5.396 = 0.0148 of the kernel time.
 * V100 and MI60 figures carried to A100 and H100 (stated: no per-GPU
 * spread of those has been published that we found); the outliers are
 * left out, as operators evict them (MegaScale, arXiv:2402.15627, sec.
 * 4).  Not fitted to any training result.
 */
#include <math.h>

#include "models/straggler.h"

#define SQRT2 1.41421356237309504880
#define LOG_SQRT_2PI 0.91893853320467274178	/* ln sqrt(2 pi) */

const struct cfg_setting strag_settings[] = {
	{ "cluster.gpu_speed_sigma", CFG_FLOAT, "", 0, 0.5, "0.0148", NULL,
	  "relative standard deviation of per-GPU compute speed within one SKU; "
	  "the step model runs every rank's kernels at the slowest of its N GPUs' "
	  "speed, 1 + sigma E[max of N normals] (default: Sinha et al. SC'22, "
	  "an 8% fence span)" },
	CFG_END
};

/* log of the standard normal CDF at x, accurate in both tails */
static double log_phi(double x)
{
	return x < 0 ? log(0.5 * erfc(-x / SQRT2)) : log1p(-0.5 * erfc(x / SQRT2));
}

/*
 * E[max] = int x n phi(x) F(x)^(n-1) dx (the density of the largest of n
 * draws), phi and F the normal density and CDF, by Simpson's rule on
 * [-9, 9]: outside it the integrand is below 1e-13 for n up to 1e6.
 */
double strag_expected_max(long n)
{
	const double lo = -9, hi = 9;
	const int steps = 3600;		/* even */
	double h = (hi - lo) / steps, sum = 0;

	if (n <= 1)
		return 0;
	for (int i = 0; i <= steps; i++) {
		double x = lo + i * h;
		double f = x * exp(log((double)n) - 0.5 * x * x - LOG_SQRT_2PI +
				   (double)(n - 1) * log_phi(x));
		double w = i == 0 || i == steps ? 1 : i % 2 ? 4 : 2;
		sum += w * f;
	}
	return sum * h / 3;
}

double strag_factor(double sigma, long n)
{
	return sigma > 0 ? 1 + sigma * strag_expected_max(n) : 1;
}

double strag_sigma_from_scenario(const struct scenario *sc)
{
	return sc_float(sc, "cluster.gpu_speed_sigma");
}
