/*
 * swf.h -- job traces for trainsim cluster.
 *
 * SWF, the Standard Workload Format of the Parallel Workloads Archive
 * (Feitelson et al., https://www.cs.huji.ac.il/labs/parallel/workload/swf.html):
 * lines of 18 whitespace-separated numbers, ';' starting a header comment.
 * Read: 1 job number, 2 submit time (s), 4 run time (s), 5 allocated
 * processors, 8 requested processors, 9 requested time (s), 12 user id,
 * 13 group id; a processor is a GPU here.  -1 is the archive's "unknown":
 * requested processors fall back to allocated, requested time to the run
 * time.  Jobs that never ran (run time -1 or 0, or no processors) are
 * skipped, as scheduler simulators do.  Team = "user<id>", project =
 * "group<id>".
 *
 * CSV with a header naming (in any order) job_id, user, gpus, submit,
 * start, end, state (the columns of the published LLM-cluster traces,
 * e.g. AcmeTrace, github.com/InternLM/AcmeTrace); times are seconds or
 * "YYYY-MM-DD HH:MM:SS" (UTC), submits made relative to the first.  The
 * run time is end - start; team = user, project = the project column or
 * else the user.  Rows whose gpus is 0 (CPU jobs)
 * are skipped.
 *
 * Every bad row is "FILE:LINE: FIELD: what is wrong", ERR_USAGE.
 */
#ifndef MODELS_SWF_H
#define MODELS_SWF_H

#include "sim/err.h"
#include "models/cjob.h"

/* Append the trace's jobs (nodes of gpus_per_node GPUs each, klass the
 * class index they get); returns jobs read, or -1. */
long swf_read(const char *path, int gpus_per_node, int klass, struct cjobs *js,
	      struct err *e);
long swf_read_csv(const char *path, int gpus_per_node, int klass, struct cjobs *js,
		  struct err *e);

#endif
