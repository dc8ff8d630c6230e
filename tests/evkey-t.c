/*
 * evkey-t.c -- fields packed into a 64-bit event argument: the layout of
 * the step model's arrivals (32-bit microbatch, 30-bit virtual stage,
 * 2-bit direction), packed values written out by hand in hexadecimal, and
 * the range check at each field's limit.
 */
#include <stdint.h>

#include "sim/evkey.h"
#include "tests/tap.h"

int main(void)
{
	static const struct evkey k = { 3, { 32, 30, 2 } };
	struct err e = { 0 };

	tap_plan(8);
	/* 5 | 7 << 32 | 1 << 62 */
	uint64_t a = evkey_pack(&k, (int64_t[]){ 5, 7, 1 });
	tap_ok(a == UINT64_C(0x4000000700000005), "pack: 0x%016llx",
	       (unsigned long long)a);
	tap_ok(evkey_get(&k, a, 0) == 5 && evkey_get(&k, a, 1) == 7 &&
	       evkey_get(&k, a, 2) == 1, "unpack gives 5, 7, 1 back");
	/* every field at its largest: all 64 bits set */
	uint64_t b = evkey_pack(&k, (int64_t[]){ INT64_C(0xffffffff), (1 << 30) - 1, 3 });
	tap_ok(b == UINT64_MAX, "largest values fill the 64 bits");
	tap_ok(evkey_get(&k, b, 1) == (1 << 30) - 1, "the middle field alone: 2^30 - 1");
	tap_ok(evkey_check(&k, 1, (1 << 30) - 1, "virtual stages", &e) == 0,
	       "2^30 - 1 fits 30 bits");
	tap_ok(evkey_check(&k, 1, 1 << 30, "virtual stages", &e) < 0 &&
	       e.status == ERR_USAGE, "2^30 does not: %s", e.msg);
	tap_ok(evkey_check(&k, 0, INT64_C(0x100000000), "microbatches", &e) < 0,
	       "2^32 microbatches do not fit 32 bits");
	tap_ok(evkey_check(&k, 2, -1, "directions", &e) < 0, "negative values never fit");
	return tap_done();
}
