package org.rpcrdma4j.shell;

import org.rpcrdma4j.server.HostServerStatistics;

/** HostServerCounters - the {@link HostServerMXBean} over a live {@link HostServerStatistics}. */
final class HostServerCounters implements HostServerMXBean {
    private final HostServerStatistics host;

    HostServerCounters(HostServerStatistics host) {
        this.host = host;
    }

    @Override
    public long getDispatchedCalls() {
        return host.dispatchedCalls();
    }

    @Override
    public long getFailedCalls() {
        return host.failedCalls();
    }

    @Override
    public long getProgramErrorCalls() {
        return host.programErrorCalls();
    }

    @Override
    public long getMalformedMessages() {
        return host.malformedMessages();
    }

    @Override
    public long getCallsRefusedOverConnectionBound() {
        return host.callsRefusedOverConnectionBound();
    }

    @Override
    public long getWorkerWakeups() {
        return host.workerWakeups();
    }

    @Override
    public long getCallsWithKeptCredential() {
        return host.callsWithKeptCredential();
    }
}
