/**
 * The in-JVM loopback verbs provider: a fabric with faithful RC semantics (keys, access, bounds,
 * RNR, flushes, invalidation, fast registration, queue depths, completion-queue overflow), a
 * deterministic mode for exact tests and a threaded mode for runs, and fault injection.
 *
 * <p>Private to its bundle: OSGi consumers see only the {@code VerbsProvider} service. Tests of
 * other modules, on the class path, may use {@link org.rpcrdma4j.verbs.loopback.LoopbackFabric}
 * directly to drive the fabric step by step.
 */
package org.rpcrdma4j.verbs.loopback;
