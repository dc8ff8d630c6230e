/*
 * trace_aws.c -- spot prices from the AWS CLI (trace_load_aws_spot, trace.h):
 * the output of `aws ec2 describe-spot-price-history` (EC2 API reference,
 * DescribeSpotPriceHistory, https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeSpotPriceHistory.html):
 *
 *   {"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a",
 *                          "InstanceType": "p5.48xlarge",
 *                          "ProductDescription": "Linux/UNIX",
 *                          "SpotPrice": "37.485357",
 *                          "Timestamp": "2024-05-31T22:00:00+00:00"}, ...],
 *    "NextToken": "..."}
 *
 * or the bare array.  Each record must be an object with the four string
 * fields above (SpotPrice is a string, as AWS prints it; other fields are
 * ignored).  Records are change points: a price holds until the next record
 * and the last one for ever.  The CLI lists newest first; after filtering
 * by instance type and zone (each required when the file holds several),
 * records must be strictly monotone in time, either direction.  A record is
 * named in messages by its path: "FILE: SpotPriceHistory[3].SpotPrice: ...".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/jsonfile.h"
#include "models/trace_int.h"

enum { REC_TS, REC_TYPE, REC_ZONE, REC_PRICE, REC_FIELDS };
static const char *const rec_keys[REC_FIELDS] = { "Timestamp", "InstanceType",
						  "AvailabilityZone", "SpotPrice" };

struct rec {
	const char *f[REC_FIELDS];	/* strings owned by the document */
	size_t idx;			/* position in the file's array */
};

struct aws {
	const char *file;
	const char *array;		/* "SpotPriceHistory", or "" for a bare array */
	struct rec *r;
	size_t n;
};

/* "FILE: SpotPriceHistory[i]" or "FILE: [i]", and ".KEY" when key is set. */
static void where(const struct aws *a, size_t idx, int key, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %s[%zu]%s%s", a->file, a->array, idx, key >= 0 ? "." : "",
		 key >= 0 ? rec_keys[key] : "");
}

static int rec_read(struct aws *a, json_t *obj, size_t idx, struct rec *r, struct err *e)
{
	char at[4200];

	where(a, idx, -1, at, sizeof at);
	if (!json_is_object(obj))
		return err_set(e, ERR_USAGE, "%s: not an object (expected a record {\"Timestamp\", "
			       "\"InstanceType\", \"AvailabilityZone\", \"SpotPrice\"})", at);
	r->idx = idx;
	for (int k = 0; k < REC_FIELDS; k++) {
		json_t *v = json_object_get(obj, rec_keys[k]);

		if (v == NULL)
			return err_set(e, ERR_USAGE, "%s: no %s (expected a record of aws ec2 "
				       "describe-spot-price-history)", at, rec_keys[k]);
		if (!json_is_string(v)) {
			where(a, idx, k, at, sizeof at);
			return err_set(e, ERR_USAGE, "%s: not a string (expected a string, as "
				       "the AWS CLI prints it)", at);
		}
		r->f[k] = json_string_value(v);
	}
	return 0;
}

/* The records of the document: its top-level array or SpotPriceHistory. */
static int records(struct aws *a, json_t *doc, struct err *e)
{
	json_t *arr = doc, *v;
	size_t i;

	a->array = "";
	if (json_is_object(doc)) {
		arr = json_object_get(doc, "SpotPriceHistory");
		a->array = "SpotPriceHistory";
		if (!json_is_array(arr))
			return err_set(e, ERR_USAGE, "%s: no SpotPriceHistory array (expected the "
				       "output of aws ec2 describe-spot-price-history)", a->file);
	}
	a->r = calloc(json_array_size(arr) + 1, sizeof *a->r);
	if (a->r == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	json_array_foreach(arr, i, v)
		if (rec_read(a, v, i, &a->r[a->n++], e) < 0)
			return -1;
	return 0;
}

/* Which records count: a filter must be given when the file mixes values. */
static int filter(struct aws *a, const char *type, const char *zone, struct err *e)
{
	const struct rec *r = a->r;
	char at[4200];
	size_t kept = 0;

	for (size_t i = 1; i < a->n; i++) {
		if (!type[0] && strcmp(r[i].f[REC_TYPE], r[0].f[REC_TYPE]) != 0) {
			where(a, r[i].idx, REC_TYPE, at, sizeof at);
			return err_set(e, ERR_USAGE, "%s: instance type %s after %s (expected one "
				       "type, or a spot_instance_type setting)", at,
				       r[i].f[REC_TYPE], r[0].f[REC_TYPE]);
		}
		if (!zone[0] && strcmp(r[i].f[REC_ZONE], r[0].f[REC_ZONE]) != 0) {
			where(a, r[i].idx, REC_ZONE, at, sizeof at);
			return err_set(e, ERR_USAGE, "%s: zone %s after %s (expected one zone, or "
				       "a spot_zone setting)", at, r[i].f[REC_ZONE],
				       r[0].f[REC_ZONE]);
		}
	}
	for (size_t i = 0; i < a->n; i++)
		if ((!type[0] || strcmp(r[i].f[REC_TYPE], type) == 0) &&
		    (!zone[0] || strcmp(r[i].f[REC_ZONE], zone) == 0))
			a->r[kept++] = r[i];
	a->n = kept;
	if (kept == 0)
		return err_set(e, ERR_USAGE, "%s: no records for instance type '%s' in zone "
			       "'%s'", a->file, type, zone);
	return 0;
}

static void reverse(struct trace *t)
{
	for (size_t i = 0, j = t->n - 1; i < j; i++, j--) {
		int64_t ts = t->t_s[i];
		double v = t->v[i];

		t->t_s[i] = t->t_s[j];
		t->v[i] = t->v[j];
		t->t_s[j] = ts;
		t->v[j] = v;
	}
}

/* The kept records into t, oldest first; the CLI prints newest first, so
 * either direction is accepted, strictly. */
static int build(struct trace *t, const struct aws *a, struct err *e)
{
	char at[4200];
	size_t cap = 0;
	int dir = 0;

	for (size_t k = 0; k < a->n; k++) {
		const struct rec *r = &a->r[k];
		int64_t ts, prev;
		double v;

		where(a, r->idx, REC_TS, at, sizeof at);
		if (trace_parse_utc(r->f[REC_TS], &ts) < 0)
			return err_set(e, ERR_USAGE, "%s: bad time '%s' (expected "
				       "YYYY-MM-DDTHH:MM:SS+00:00)", at, r->f[REC_TS]);
		if (k > 0) {
			prev = t->t_s[t->n - 1];
			if (ts == prev)
				return err_set(e, ERR_USAGE, "%s: duplicate time %s", at,
					       r->f[REC_TS]);
			if (k == 1)
				dir = ts > prev ? 1 : -1;
			else if ((ts > prev ? 1 : -1) != dir)
				return err_set(e, ERR_USAGE, "%s: %s out of order (expected all "
					       "records newest first or all oldest first)", at,
					       r->f[REC_TS]);
		}
		where(a, r->idx, REC_PRICE, at, sizeof at);
		if (trace_value(at, TRACE_SPOT, r->f[REC_PRICE], &v, e) < 0 ||
		    trace_push(t, &cap, ts, v, e) < 0)
			return -1;
		if (k == 0 || dir < 0)	/* the oldest record so far */
			snprintf(t->first_at, sizeof t->first_at, ": %s[%zu]", a->array, r->idx);
	}
	if (dir < 0)
		reverse(t);
	t->step_s = 0;
	return 0;
}

int trace_load_aws_spot(struct trace *t, const char *path, const char *instance_type,
			const char *zone, struct err *e)
{
	struct aws a = { .file = path };
	json_t *doc;
	int rc;

	if (trace_begin(t, path, e) < 0)
		return -1;
	doc = jsonfile_load(path, e);
	rc = doc ? records(&a, doc, e) : -1;
	if (rc == 0)
		rc = filter(&a, instance_type ? instance_type : "", zone ? zone : "", e);
	if (rc == 0)
		rc = build(t, &a, e);
	free(a.r);
	json_decref(doc);
	if (rc < 0)
		trace_free(t);
	return rc;
}
