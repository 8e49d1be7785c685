/**
 * The READ engine (Linux: the READ half of {@code svc_rdma_rw.c}): a call's read list planned
 * into RDMA READs no longer than a sink ({@link org.rpcrdma4j.transport.internal.read.ReadPlanner},
 * {@link org.rpcrdma4j.transport.internal.read.ReadPlan}), scheduled within the connection's
 * outstanding-READ limit and its share of the loop's sinks
 * ({@link org.rpcrdma4j.transport.internal.read.ReadScheduler}), and the registration strategies'
 * sink pools, retired when a strategy goes away ({@link org.rpcrdma4j.transport.internal.read.StrategyPool},
 * {@link org.rpcrdma4j.transport.internal.read.StrategyRegistry}).
 *
 * <p>Threading: the owning connection's completion loop; the registry is safe from any thread.
 */
package org.rpcrdma4j.transport.internal.read;
