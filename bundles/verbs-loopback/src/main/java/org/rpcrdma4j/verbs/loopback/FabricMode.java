package org.rpcrdma4j.verbs.loopback;

/** How a {@link LoopbackFabric} makes progress. */
public enum FabricMode {
    /**
     * Nothing executes until the test calls {@link LoopbackFabric#step()} or
     * {@link LoopbackFabric#runUntilIdle()}: exact, single-threaded tests.
     */
    DETERMINISTIC,
    /** A daemon thread of the fabric executes posted work as it arrives: runs and benchmarks. */
    THREADED
}
