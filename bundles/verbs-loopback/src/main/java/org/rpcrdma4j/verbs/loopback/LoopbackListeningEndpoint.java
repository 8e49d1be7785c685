package org.rpcrdma4j.verbs.loopback;

import java.net.InetSocketAddress;

import org.rpcrdma4j.verbs.ListeningEndpoint;

/** A loopback listener: an entry in the fabric's address table, with its backlog of pending requests. */
final class LoopbackListeningEndpoint implements ListeningEndpoint {
    final LoopbackConnectionManager manager;
    private final int backlog;
    private InetSocketAddress address;
    private int pendingRequests;
    private boolean closed;

    LoopbackListeningEndpoint(LoopbackConnectionManager manager, int backlog) {
        this.manager = manager;
        this.backlog = Math.max(1, backlog);
    }

    /** Under the fabric lock. */
    void bound(InetSocketAddress boundAddress) {
        this.address = boundAddress;
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    /** Under the fabric lock: whether one more connect request fits the backlog. */
    boolean admitRequest() {
        if (closed || pendingRequests >= backlog) {
            return false;
        }
        pendingRequests++;
        return true;
    }

    /** Under the fabric lock: a request was accepted, rejected or abandoned. */
    void requestAnswered() {
        pendingRequests--;
    }

    @Override
    public void close() {
        manager.fabric.lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            manager.fabric.unbind(address);
            manager.forget(this);
        } finally {
            manager.fabric.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "LoopbackListeningEndpoint[" + address + "]";
    }
}
