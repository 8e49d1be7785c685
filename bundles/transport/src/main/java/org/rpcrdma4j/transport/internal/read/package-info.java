/**
 * The READ engine (Linux: the READ half of {@code svc_rdma_rw.c}): a call's read list planned
 * into RDMA READs no longer than a sink ({@link org.rpcrdma4j.transport.internal.read.ReadPlanner},
 * {@link org.rpcrdma4j.transport.internal.read.ReadPlan}), scheduled within the connection's
 * outstanding-READ limit and its share of the loop's sinks
 * ({@link org.rpcrdma4j.transport.internal.read.ReadScheduler}), and the registration strategies'
 * sink pools, retired when a strategy goes away ({@link org.rpcrdma4j.transport.internal.read.StrategyPool},
 * {@link org.rpcrdma4j.transport.internal.read.StrategyRegistry}).
 *
 * <p>Layering: uses the send queue (READ chains are posted on it) and {@code common} only. The
 * calls it pulls and the device's sink pools are seen here as
 * {@link org.rpcrdma4j.transport.internal.read.ReadingCall} and
 * {@link org.rpcrdma4j.transport.internal.read.SinkPools}.
 *
 * <p>Threading: the owning connection's completion loop; the registry is safe from any thread.
 */
package org.rpcrdma4j.transport.internal.read;
