# topologies/local.mk -- link catalog, topology builders, flows, collectives.
noinst_HEADERS += topologies/net.h
