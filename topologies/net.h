/*
 * net.h -- the cluster's network as the rest of trainsim sees it.
 *
 * net_cfg_from_scenario() reads the settings (cluster.*, network.*, the
 * links catalog) and net_build() builds the graph from them: GPUs in scale-up (NVLink) domains, NICs, a fat-tree
 * or dragonfly of switches, and the placement of ranks on GPUs.
 *
 * Collectives run in two ways:
 *   - net_coll_time_s(): one collective alone on the fabric (analytic path
 *     walk plus the flow model with no other traffic) -- for tables and for
 *     symmetric shortcuts;
 *   - a netsim on an ev_sim: many collectives at once, decomposed into flows
 *     that share links max-min fairly; completion calls back.  This is what
 *     the step model uses so that concurrent DP groups contend.
 *
 * Conventions: `bytes` is the whole buffer S as in nccl-tests (all-reduce of
 * S, all-gather producing S, reduce-scatter consuming S).  GPU indices are
 * global 0..n-1, node = gpu / gpus_per_node.  Rank r of the training job
 * runs on net_rank_gpu(net, r); ranks are numbered Megatron-style with TP
 * innermost, then DP, then PP.
 */
#ifndef TOPOLOGIES_NET_H
#define TOPOLOGIES_NET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "sim/ev.h"

enum coll_op {
	COLL_ALL_REDUCE, COLL_REDUCE_SCATTER, COLL_ALL_GATHER,
	COLL_ALL_TO_ALL, COLL_BROADCAST, COLL_SENDRECV,
};
enum coll_algo { COLL_AUTO, COLL_RING, COLL_TREE, COLL_HIER, COLL_NVLS };

struct coll {
	enum coll_op op;
	enum coll_algo algo;
	const int *gpus;	/* participants (global GPU indices); SENDRECV: [src, dst] */
	int n_gpus;
	double bytes;		/* S, nccl-tests convention */
	/* ALL_TO_ALL only (alltoallv): the busiest participant's share over
	 * the mean.  gpus[0] receives skew/n of every rank's S and the other
	 * n-1 share the rest evenly, so it takes in skew times the mean and
	 * the total stays n S.  0 or 1: balanced; at most n. */
	double skew;
};

/* The network's settings, read from the scenario once per load (a missing
 * link is an error at the key that names it) and kept, with where each
 * key is, for net_build(). */
struct net_cfg;
struct net_cfg *net_cfg_from_scenario(const struct scenario *sc, struct err *e);
/* The same for a network of gpus GPUs of type gpu (a gpus catalog entry)
 * in nodes of gpus_per_node, whatever cluster.* says (trainsim cluster's
 * fleet, whose scenario has no cluster group); net_build() blames
 * size_key for what it would blame on cluster.* settings. */
struct net_cfg *net_cfg_for_gpus(const struct scenario *sc, const char *gpu, int gpus,
				 int gpus_per_node, const char *size_key, struct err *e);
void net_cfg_free(struct net_cfg *c);
/* What one node's scale-out NICs carry out, bytes/s at NCCL's efficiency
 * (0 without a fabric). */
double net_cfg_node_out_Bps(const struct net_cfg *c);

/* Nodes of gpus_per_node GPUs under one leaf switch of the fat tree the
 * scenario's network.* settings build (topology, scale-out link and its
 * switch radix, leaf oversubscription, NICs per node, rail optimisation):
 * a leaf's d0 down ports / NICs per node, whole nodes only; rail-optimised,
 * the d0 nodes of a scalable unit, which share its nics_per_node leaves.
 * Errors name key (the setting that asked) or the network.* key at fault. */
int net_nodes_per_leaf(const struct scenario *sc, int gpus_per_node, const char *key,
		       struct err *e);

struct net;
/* A network from the settings; its errors (an odd radix, a placement
 * naming a missing GPU, ...) name the key at fault at its file and line. */
struct net *net_build(const struct net_cfg *c, struct err *e);
void net_free(struct net *net);
int net_gpu_count(const struct net *net);
int net_gpus_per_node(const struct net *net);
int net_rank_gpu(const struct net *net, int rank);
/* -1 with e filled on error. */
double net_coll_time_s(struct net *net, const struct coll *c, struct err *e);

struct netsim;
typedef int (*coll_done_fn)(void *ctx, uint64_t tag, struct err *e);
struct netsim *netsim_new(struct net *net, struct ev_sim *sim, struct err *e);
void netsim_free(struct netsim *ns);
int netsim_start(struct netsim *ns, const struct coll *c, coll_done_fn done,
		 void *ctx, uint64_t tag, struct err *e);
/* Bytes carried per link tier by the transfers completed so far
 * ("nvlink", "pcie", "leaf", "spine", "core", "terminal", "local",
 * "global"): names and totals owned by ns. */
size_t netsim_tiers(const struct netsim *ns, const char *const **names,
		    const double **bytes);

/* Flows not yet delivered (for tests and progress). */
size_t netsim_active_flows(const struct netsim *ns);

/* The nccl-tests-style table of `trainsim collective`: sizes min_bytes,
 * min_bytes*factor, ... up to max_bytes, on ranks 0..n_ranks-1 (0: all
 * GPUs); columns size, count, type, redop, root, time (us), algbw and
 * busbw (GB/s, nccl-tests' factors), #wrong.  Then which algorithm auto
 * chose for which sizes (or what an --algo that cannot run there ran as;
 * an operation with one algorithm says so at the top), and nccl-tests'
 * closing "# Avg bus bandwidth" line, the mean busbw over the sizes.
 * skew > 1 (all_to_all only, at most n_ranks): the alltoallv of struct
 * coll, sizes the mean rank's. */
int coll_table_print(struct net *net, enum coll_op op, enum coll_algo algo,
		     double min_bytes, double max_bytes, double factor,
		     int n_ranks, double skew, FILE *out, struct err *e);
/* Names as the CLI takes them ("all_reduce", ..., "ring", "tree", "hier",
 * "nvls", "auto"): 0, or -1 if unknown. */
int coll_op_parse(const char *s, enum coll_op *op);
int coll_algo_parse(const char *s, enum coll_algo *algo);

/* Settings the network reads (network.*, links.*), for the schema. */
extern const struct cfg_setting net_settings[];

#endif
