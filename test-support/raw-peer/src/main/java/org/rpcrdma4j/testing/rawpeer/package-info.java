/**
 * A raw RPC-over-RDMA requester on the verbs contract for tests, fuzzing and benchmarks
 * ({@link org.rpcrdma4j.testing.rawpeer.RawPeer}): test support, not a bundle, in no feature.
 */
package org.rpcrdma4j.testing.rawpeer;
