/*
 * placement.c -- which GPU each training rank runs on.
 *
 * Ranks are numbered Megatron-style (TP innermost, then DP, then PP) and
 * GPUs are numbered node by node, so the identity mapping puts each TP
 * group inside one node's NVLink domain: the default.  A scenario may give
 * network.placement, a permutation of the GPUs (rank r on list[r]), to
 * study other layouts; it must name each GPU that exists exactly once.
 */
#include <stdlib.h>

#include "topologies/topo.h"

int *place_ranks(int gpus, const int *list, int n_list, struct err *e)
{
	int *map = malloc(sizeof *map * (size_t)gpus);
	char *used = calloc((size_t)gpus, 1);

	if (map == NULL || used == NULL) {
		free(map);
		free(used);
		err_set(e, ERR_RUN, "out of memory for the placement");
		return NULL;
	}
	if (list == NULL) {
		for (int r = 0; r < gpus; r++)
			map[r] = r;
		free(used);
		return map;
	}
	if (n_list != gpus) {
		err_set(e, ERR_USAGE, "placement lists %d GPUs but the cluster has %d "
			"(expected one GPU per rank)", n_list, gpus);
		goto fail;
	}
	for (int r = 0; r < gpus; r++) {
		if (list[r] < 0 || list[r] >= gpus) {
			err_set(e, ERR_USAGE, "rank %d is placed on GPU %d, which does "
				"not exist (expected 0..%d)", r, list[r], gpus - 1);
			goto fail;
		}
		if (used[list[r]]) {
			err_set(e, ERR_USAGE, "GPU %d is named twice (rank %d); "
				"expected a permutation", list[r], r);
			goto fail;
		}
		used[list[r]] = 1;
		map[r] = list[r];
	}
	free(used);
	return map;
fail:
	free(map);
	free(used);
	return NULL;
}
