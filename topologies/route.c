/*
 * route.c -- choosing among equal-cost paths (ECMP).
 *
 * Two modes, as switches offer them:
 *   hash    a hash of the flow's (source, destination, key) picks the path,
 *           as ECMP does on the 5-tuple; different flows may collide;
 *   spread  the choice follows the flow's slot (its port on the leaf plus
 *           its channel), so flows of one leaf take distinct uplinks --
 *           what InfiniBand's static fat-tree routing and adaptive routing
 *           achieve for the permutations collectives produce.
 * The hash is splitmix64's finaliser: cheap, and it spreads consecutive
 * integers well, which is what endpoint numbers are.
 */
#include "topologies/topo.h"

uint64_t route_mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

uint64_t route_hash3(uint64_t a, uint64_t b, uint64_t c)
{
	return route_mix(a ^ route_mix(b ^ route_mix(c)));
}

int route_pick(enum ecmp_mode mode, int n, uint64_t slot, uint64_t hash)
{
	if (n <= 1)
		return 0;
	return (int)((mode == ECMP_SPREAD ? slot : hash) % (uint64_t)n);
}
