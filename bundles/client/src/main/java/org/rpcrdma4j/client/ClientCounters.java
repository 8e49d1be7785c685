package org.rpcrdma4j.client;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The live counters of one client. Thread-safe: each counter is atomic; a snapshot is not
 * atomic as a whole.
 */
final class ClientCounters {
    final AtomicLong callsSent = new AtomicLong();
    final AtomicLong inlineCalls = new AtomicLong();
    final AtomicLong nomsgCalls = new AtomicLong();
    final AtomicLong readChunks = new AtomicLong();
    final AtomicLong repliesReceived = new AtomicLong();
    final AtomicLong rdmaErrors = new AtomicLong();
    final AtomicLong malformedReplies = new AtomicLong();
    final AtomicLong unmatchedReplies = new AtomicLong();
    final AtomicInteger maxOutstanding = new AtomicInteger();
    final AtomicInteger creditLimit = new AtomicInteger();
    final AtomicLong registrations = new AtomicLong();
    final AtomicLong deregistrations = new AtomicLong();
    final AtomicLong backwardCalls = new AtomicLong();
    final AtomicLong backwardReplies = new AtomicLong();
    final AtomicLong backwardCallsDropped = new AtomicLong();

    ClientStatistics snapshot() {
        return new ClientStatistics(callsSent.get(), inlineCalls.get(), nomsgCalls.get(), readChunks.get(), repliesReceived.get(),
                rdmaErrors.get(), malformedReplies.get(), unmatchedReplies.get(), maxOutstanding.get(), creditLimit.get(),
                registrations.get(), deregistrations.get(), backwardCalls.get(), backwardReplies.get(),
                backwardCallsDropped.get());
    }
}
