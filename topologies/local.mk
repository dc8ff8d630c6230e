# topologies/local.mk -- link catalog, topology builders, flows, collectives.
noinst_HEADERS += topologies/net.h topologies/platform.h
libtrainsim_a_SOURCES += topologies/graph.c topologies/route.c \
	topologies/nvlink.c topologies/fattree.c topologies/dragonfly.c \
	topologies/placement.c topologies/flow.c topologies/coll.c topologies/collcache.c \
	topologies/net.c topologies/netcfg.c topologies/netsim.c \
	topologies/platform.c
noinst_HEADERS += topologies/graph.h topologies/topo.h topologies/flow.h \
	topologies/coll.h
check_PROGRAMS += tests/net-flow-t
TESTS += tests/net-flow-t
tests_net_flow_t_SOURCES = tests/net-flow-t.c
check_PROGRAMS += tests/net-coll-t
TESTS += tests/net-coll-t
tests_net_coll_t_SOURCES = tests/net-coll-t.c
check_PROGRAMS += tests/net-topo-t
TESTS += tests/net-topo-t
tests_net_topo_t_SOURCES = tests/net-topo-t.c
EXTRA_PROGRAMS += tests/bench/net-b
BENCHES += tests/bench/net-b
tests_bench_net_b_SOURCES = tests/bench/net-b.c
check_PROGRAMS += tests/net-cfg-t
TESTS += tests/net-cfg-t
tests_net_cfg_t_SOURCES = tests/net-cfg-t.c
EXTRA_DIST += tests/net-small.cfg
check_PROGRAMS += tests/net-sim-t
TESTS += tests/net-sim-t
tests_net_sim_t_SOURCES = tests/net-sim-t.c
check_PROGRAMS += tests/net-platform-t
TESTS += tests/net-platform-t
tests_net_platform_t_SOURCES = tests/net-platform-t.c
