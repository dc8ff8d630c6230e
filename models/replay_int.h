/*
 * replay_int.h -- what replay.c shares with the capacity trace readers
 * (replay_sky.c, replay_bamboo.c); not for other modules.
 */
#ifndef MODELS_REPLAY_INT_H
#define MODELS_REPLAY_INT_H

#include "models/replay.h"

/* Append a change point (time, count) to t, whose arrays have room *cap;
 * equal times keep the last count, equal counts are not a change. */
int replay_cap_push(struct replay_cap *t, size_t *cap, double t_s, int avail,
		    struct err *e);

int replay_read_skypilot(const char *path, struct replay_cap *t, struct err *e);
int replay_read_bamboo(const char *path, struct replay_cap *t, struct err *e);

#endif
