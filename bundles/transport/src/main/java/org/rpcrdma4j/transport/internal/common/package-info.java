/**
 * What every path of the transport shares, and nothing else: the counters
 * ({@link org.rpcrdma4j.transport.internal.common.Counters}), what a work request id says
 * ({@link org.rpcrdma4j.transport.internal.common.WorkRequestIds}), the fair-share rule of a pool
 * the connections of a loop share ({@link org.rpcrdma4j.transport.internal.common.PoolShare}) and
 * the tally of what the loops and connections hold
 * ({@link org.rpcrdma4j.transport.internal.common.UsageTally}).
 *
 * <p>The bottom layer of the transport's internals: it uses no other internal package, and every
 * other internal package may use it.
 */
package org.rpcrdma4j.transport.internal.common;
