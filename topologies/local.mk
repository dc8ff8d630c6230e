# topologies/local.mk -- link catalog, topology builders, flows, collectives.
noinst_HEADERS += topologies/net.h topologies/platform.h
libtrainsim_a_SOURCES += topologies/graph.c topologies/route.c \
	topologies/nvlink.c topologies/fattree.c topologies/dragonfly.c \
	topologies/placement.c topologies/flow.c topologies/coll.c topologies/collcache.c \
	topologies/net.c topologies/netcfg.c topologies/netsim.c \
	topologies/platform.c
noinst_HEADERS += topologies/graph.h topologies/topo.h topologies/flow.h \
	topologies/coll.h
UNIT_TESTS += tests/net-flow-t
UNIT_TESTS += tests/net-coll-t
UNIT_TESTS += tests/net-topo-t
BENCHES += tests/bench/net-b
tests_bench_net_b_SOURCES = tests/bench/net-b.c
UNIT_TESTS += tests/net-cfg-t
EXTRA_DIST += tests/net-small.cfg
UNIT_TESTS += tests/net-sim-t
UNIT_TESTS += tests/net-platform-t
