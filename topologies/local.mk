# topologies/local.mk -- link catalog, topology builders, flows, collectives.
