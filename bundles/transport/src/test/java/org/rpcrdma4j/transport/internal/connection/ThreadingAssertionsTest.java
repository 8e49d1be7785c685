package org.rpcrdma4j.transport.internal.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.conformance.RecordingHandler;
import org.rpcrdma4j.transport.conformance.TransportHarness;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * ThreadingAssertionsTest - a method documented to run under the connection's send lock checks it
 * with an assertion (the tests run with assertions enabled): called without the lock, it throws
 * at once instead of racing a worker's post.
 */
class ThreadingAssertionsTest {
    @Test
    void aSendLockMethodCalledWithoutTheLockFailsItsAssertion() throws Exception {
        assertTrue(ThreadingAssertionsTest.class.desiredAssertionStatus(), "surefire enables assertions");
        try (TransportHarness harness = new TransportHarness(LoopbackFabric.deterministic(),
                TransportConfig.builder().credits(4).backchannelCredits(0).build(), new RecordingHandler())) {
            harness.connect();
            ConnectionState connection = (ConnectionState) harness.transport().connections().get(0);
            AssertionError error = assertThrows(AssertionError.class, () -> connection.sendSide().takeSubmittedReplies());
            assertEquals("takeSubmittedReplies() without the send lock", error.getMessage());

            AtomicInteger taken = new AtomicInteger(-1);
            connection.underSendLock(() -> taken.set(connection.sendSide().takeSubmittedReplies()));
            assertEquals(0, taken.get(), "under the lock it runs: no reply was handed in");
        }
    }
}
