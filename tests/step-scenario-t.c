/* step-scenario-t.c -- the step model's settings and memory check read from
 * scenario files: errors name the setting at fault, the memory error carries
 * the breakdown.  Expected figures by hand (doc/sources.md section 8, Megatron-LM). */
#define _XOPEN_SOURCE 700	/* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "tests/step-load.h"

static char path[4096];

/* Megatron Table 1 row 1 (1.7B, 32 A100-80GB) plus `extra` settings. */
static const char *write_scenario(const char *parallel_extra, const char *extra)
{
	char dir[] = "/tmp/step-scenario-XXXXXX";
	int fd;
	FILE *f;

	char *src = realpath(tap_srcdir(), NULL);

	snprintf(path, sizeof path, "%s", dir);
	fd = src ? mkstemp(path) : -1;
	if (fd < 0) {
		free(src);
		return NULL;
	}
	f = fdopen(fd, "w");
	/* includes resolve against the file's directory, /tmp */
	fprintf(f, "@include \"..%s/scenarios/catalog/gpus.cfg\"\n"
		"model = { layers = 24; hidden = 2304; heads = 24; seq_len = 2048;"
		" vocab = 51200; };\n"
		"run = { tokens = 1e9; };\n"
		"cluster = { gpu = \"a100_80gb\"; gpus = 32; gpus_per_node = 8; };\n"
		"parallel = { tp = 1; global_batch = 512; micro_batch = 16; %s };\n%s\n",
		src, parallel_extra, extra);
	fclose(f);
	free(src);
	return path;
}

/* Row 1 with these parallel settings and override, read but for the
 * network (these files have no links). */
static int load(struct cfg_schema *s, const char *par, const char *ovr,
		struct step_job *x, struct err *e)
{
	const char *file = write_scenario(par, "");
	int rc;

	if (!file) {
		memset(x, 0, sizeof *x);
		snprintf(e->msg, sizeof e->msg, "cannot write a scenario in /tmp");
		return -1;
	}
	rc = step_job_load(s, file, ovr ? &ovr : NULL, ovr ? 1 : 0, x, e);
	unlink(path);
	return rc;
}

static void check_error(struct cfg_schema *s, const char *par, const char *ovr,
			const char *key, const char *what)
{
	struct step_job x;
	struct err e;
	int rc = load(s, par, ovr, &x, &e);

	if (rc == 0)
		rc = par_check(x.cfg.where, &x.m, &x.L, &x.cfg.par, &e);
	if (rc == 0)
		rc = gpu_check(&x.g, x.cfg.where, &e);
	tap_ok(rc < 0 && e.status == ERR_USAGE && strstr(e.msg, key) != NULL,
	       "%s is a scenario error naming %s", what, key);
	if (rc == 0 || !strstr(e.msg, key))
		tap_diag("message: %s", e.msg);
	sc_free(x.sc);
}

int main(void)
{
	struct cfg_schema *s = cfg_schema_new();
	struct step_job x;
	struct err e;
	struct mem_breakdown b;

	/* step_schema_new() less the network: these files have no links */
	cfg_schema_add(s, tfm_settings);
	cfg_schema_add(s, layout_settings);
	cfg_schema_add(s, gpu_settings);
	cfg_schema_add(s, node_settings);
	cfg_schema_add(s, par_settings);
	cfg_schema_add(s, strag_settings);
	tap_plan(19);

	if (!tap_ok(load(s, "recompute = \"full\";", NULL, &x, &e) == 0, "row 1 loads (%s)", e.msg)) {
		sc_free(x.sc);
		cfg_schema_free(s);
		return tap_done();
	}
	tap_ok(par_check(x.cfg.where, &x.m, &x.L, &x.cfg.par, &e) == 0, "its settings check");
	/* dp = 32: Megatron's bucket max(40M, 1M x 32) = 40M fp16 elements */
	tap_near(par_dp_bucket_bytes(&x.cfg.par, x.L.dp), 80e6, 1e-12,
		 "default bucket: 40M elements, 80 MB");
	/* the same 40M elements of fp32 gradients (megatron_core's bf16
	 * training reduces in fp32): 160 MB */
	{
		struct par_opts q = x.cfg.par;

		q.grad_reduce_bytes = 4;
		tap_near(par_dp_bucket_bytes(&q, x.L.dp), 160e6, 1e-12,
			 "fp32 gradients: 40M elements, 160 MB");
	}
	int fits = step_check_memory(&x.cfg, &x.m, &x.L, &x.g, &b, &e);
	tap_ok(fits == 0, "1.7B with full recomputation fits 80 GB (%.1f GB)",
	       b.total_bytes / 1e9);
	/* P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) plus the final norm 2h;
	 * 16 bytes each (doc/sources.md section 8) */
	double l = 24, h = 2304, P = 12 * l * h * h * (1 + 13 / (12 * h) +
				(51200 + 2048) / (12 * l * h)) + 2 * h;
	tap_near(b.weights_bytes + b.grads_bytes + b.optimizer_bytes, 16 * P, 1e-12,
		 "model states 16 bytes x 1.65B parameters");
	sc_free(x.sc);

	/* no recomputation at micro batch 16: sbh(34 + 5as/h) x 24 layers x 16
	 * sequences = 24 x 2048 x 16 x 2304 x 140 bytes = 254 GB, + fp32 logits */
	int rc = load(s, "recompute = \"none\";", NULL, &x, &e);
	tap_ok(rc == 0, "loads");
	if (rc == 0)
		rc = step_check_memory(&x.cfg, &x.m, &x.L, &x.g, &b, &e);
	tap_ok(rc < 0 && e.status == ERR_USAGE && strstr(e.msg, "does not fit") &&
	       strstr(e.msg, "activations") && strstr(e.msg, "optimizer"),
	       "too big: scenario error with the breakdown (%s)", e.msg);
	sc_free(x.sc);

	check_error(s, "schedule = \"interleaved\"; virtual_stages = 2;", NULL,
		    "parallel.schedule", "interleaved without a pipeline");
	check_error(s, "virtual_stages = 2;", NULL, "parallel.virtual_stages",
		    "virtual stages with 1F1B");
	check_error(s, "zero_stage = 1; distributed_optimizer = true;", NULL,
		    "parallel.distributed_optimizer", "ZeRO and the distributed optimizer");
	check_error(s, "zero_stage = 3; pp = 2;", NULL,
		    "parallel.zero_stage", "ZeRO-3 with pipeline stages");
	check_error(s, "zero_stage = 2; pp = 2; schedule = \"deepspeed\";", NULL,
		    "parallel.zero_stage", "ZeRO-2 in DeepSpeed's pipeline engine");
	/* 24 layers on 4 stages: 6 each; the first and last stage may leave
	 * one chunk empty (the embedding's, the loss's), the middle ones none */
	check_error(s, "pp = 4; schedule = \"interleaved\"; virtual_stages = 7;", NULL,
		    "parallel.virtual_stages", "a middle stage with fewer layers than chunks");
	rc = load(s, "zero_stage = 2; pp = 2;", NULL, &x, &e);
	tap_ok(rc == 0 && par_check(x.cfg.where, &x.m, &x.L, &x.cfg.par, &e) == 0,
	       "ZeRO-2 with pipeline stages outside DeepSpeed (FSDP, Llama 3) (%s)", e.msg);
	sc_free(x.sc);
	rc = load(s, "pp = 2; schedule = \"interleaved\"; virtual_stages = 13;",
		  NULL, &x, &e);
	tap_ok(rc == 0 && par_check(x.cfg.where, &x.m, &x.L, &x.cfg.par, &e) == 0,
	       "12 layers a stage on 2 stages make 13 chunks, one empty on each (%s)", e.msg);
	sc_free(x.sc);
	check_error(s, "", "gpus.a100_80gb.kernels=no-such-folder",
		    "gpus.a100_80gb.kernels", "a kernel folder that is not there");

	/* An error found after the load, as for an elastic job shrunk by
	 * failures: 512 sequences in microbatches of 16 on dp = 16 make 2
	 * per pipeline, a multiple of pp = 2; shrunk to dp = 11 they make
	 * ceil(512 / 176) = 3, which the interleaved schedule refuses.  The
	 * message names the key's file and line (5: the parallel group, where
	 * global_batch is set) from the typed settings. */
	rc = load(s, "pp = 2; schedule = \"interleaved\"; virtual_stages = 2;", NULL, &x, &e);
	tap_ok(rc == 0 && par_check(x.cfg.where, &x.m, &x.L, &x.cfg.par, &e) == 0,
	       "interleaved, pp 2, dp 16: 2 microbatches per pipeline (%s)", e.msg);
	if (rc == 0) {
		struct layout shrunk = x.L;
		char want[4200];
		shrunk.dp = 11;
		shrunk.gpus = 22;
		shrunk.microbatches = 3;
		snprintf(want, sizeof want, "%s:5: parallel.global_batch: 3 microbatches", path);
		rc = par_check(x.cfg.where, &x.m, &shrunk, &x.cfg.par, &e);
		tap_ok(rc < 0 && strncmp(e.msg, want, strlen(want)) == 0,
		       "shrunk to dp 11: FILE:5: parallel.global_batch (%s)", e.msg);
	}
	sc_free(x.sc);
	cfg_schema_free(s);
	return tap_done();
}
