/**
 * The verbs provider conformance suite, shipped as the {@code tests} jar of
 * {@code rpcrdma4j-verbs}.
 *
 * <p>To run it against a provider, add to the provider module's pom
 * <pre>{@code
 * <dependency>
 *   <groupId>org.rpcrdma4j</groupId><artifactId>rpcrdma4j-verbs</artifactId>
 *   <version>${project.version}</version><type>test-jar</type><scope>test</scope>
 * </dependency>
 * }</pre>
 * and subclass {@link org.rpcrdma4j.verbs.conformance.VerbsProviderConformanceTest} with a
 * {@link org.rpcrdma4j.verbs.conformance.ConformanceFixture}: the provider, an address its
 * connection manager can listen on and reach, and {@code progress()} (0 for a provider that
 * progresses by itself). Skip with {@code assumeTrue} in {@code createFixture()} where the
 * hardware is absent (e.g. no rxe device). {@link org.rpcrdma4j.verbs.conformance.ConnectedPair},
 * {@link org.rpcrdma4j.verbs.conformance.Side} and {@link org.rpcrdma4j.verbs.conformance.Harness}
 * are reusable on their own for tests of code above the contract.
 */
package org.rpcrdma4j.verbs.conformance;
