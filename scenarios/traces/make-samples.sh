#!/bin/sh
# Regenerate the sample traces in this directory (deterministic; POSIX awk).
#
# us-grid-2024-05.csv -- hourly grid intensity for May 2024, UTC, in the
#   two-column layout (datetime_utc,g_per_kwh).  Made from one published
#   figure and one stated assumption: the level is the USA 2023 average,
#   369.5 gCO2e/kWh (OWID via codecarbon, doc/sources.md section 5);
#   the daily shape is ours, a +-15% cosine peaking at 01:00 UTC (evening in
#   US central time).  Over whole days its mean is exactly 369.5, so a run
#   of whole days at constant power gets the constant-intensity answer and
#   anything else shows the covariance of power and intensity.
#
# p5-spot-2024-05.json -- AWS describe-spot-price-history output (newest
#   first, as the CLI prints it) for p5.48xlarge in us-east-1a, May 2024.
#   Made from published figures: on-demand $98.32/h (nextplatform.com
#   2023-07-27; doc/sources.md section 4) and H100 spot "50-65% below on-demand" (digiterialabs.com,
#   Q1 2026), so every price lies in [$34.41, $49.16].  The path inside the
#   band is a bounded random walk of our own (Park-Miller generator, seed
#   20240501), a change every 1-6 hours: it has the shape of spot history,
#   not its values.
set -eu
cd "$(dirname "$0")"

awk 'BEGIN {
	pi = atan2(0, -1);
	print "datetime_utc,g_per_kwh";
	for (d = 1; d <= 31; d++)
		for (h = 0; h < 24; h++)
			printf "2024-05-%02d %02d:00:00,%.3f\n", d, h,
			       369.5 * (1 + 0.15 * cos(2 * pi * (h - 1) / 24));
}' >us-grid-2024-05.csv

awk 'function rnd() { x = (x * 16807) % 2147483647; return x / 2147483647 }
BEGIN {
	x = 20240501; lo = 98.32 * 0.35; hi = 98.32 * 0.50;
	p = (lo + hi) / 2; t = 0; n = 0;
	while (t < 31 * 24) {
		d = int(t / 24) + 1; h = t % 24;
		ts[n] = sprintf("2024-05-%02dT%02d:00:00+00:00", d, h);
		p += (rnd() - 0.5) * 4;
		if (p < lo) p = lo + (lo - p);
		if (p > hi) p = hi - (p - hi);
		pr[n++] = p;
		t += 1 + int(rnd() * 6);
	}
	print "{";
	print "    \"SpotPriceHistory\": [";
	for (i = n - 1; i >= 0; i--) {
		print "        {";
		print "            \"AvailabilityZone\": \"us-east-1a\",";
		print "            \"InstanceType\": \"p5.48xlarge\",";
		print "            \"ProductDescription\": \"Linux/UNIX\",";
		printf "            \"SpotPrice\": \"%.6f\",\n", pr[i];
		printf "            \"Timestamp\": \"%s\"\n", ts[i];
		print (i > 0 ? "        }," : "        }");
	}
	print "    ]";
	print "}";
}' >p5-spot-2024-05.json
