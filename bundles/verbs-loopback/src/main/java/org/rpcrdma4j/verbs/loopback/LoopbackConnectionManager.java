package org.rpcrdma4j.verbs.loopback;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventHandler;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ListeningEndpoint;
import org.rpcrdma4j.verbs.QueuedConnectionEvent;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A loopback connection manager: its listeners and connections, and a queue of their events.
 * Events are queued under the fabric lock and handed to the handler outside it, so a handler may
 * call accept, reject or close directly.
 */
final class LoopbackConnectionManager implements ConnectionManager {
    final LoopbackFabric fabric;
    private final Condition eventsAvailable;
    private final ArrayDeque<QueuedConnectionEvent> events = new ArrayDeque<>();
    private final Set<LoopbackConnection> connections = new LinkedHashSet<>();
    private final Set<LoopbackListeningEndpoint> endpoints = new LinkedHashSet<>();
    private boolean closed;
    /** A {@link #wakeup()} not yet seen by an await (guarded by the fabric lock). */
    private boolean woken;

    LoopbackConnectionManager(LoopbackFabric fabric) {
        this.fabric = fabric;
        this.eventsAvailable = fabric.lock.newCondition();
    }

    @Override
    public ListeningEndpoint listen(InetSocketAddress address, int backlog) throws VerbsException {
        fabric.lock.lock();
        try {
            checkOpen();
            fabric.checkOpen();
            LoopbackListeningEndpoint endpoint = new LoopbackListeningEndpoint(this, backlog);
            endpoint.bound(fabric.bind(address, endpoint));
            endpoints.add(endpoint);
            return endpoint;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public Connection createConnection(InetSocketAddress localAddress, InetSocketAddress remoteAddress, Duration timeout) throws VerbsException {
        if (remoteAddress.isUnresolved()) {
            throw new VerbsException("cannot resolve " + remoteAddress, Errno.ENXIO);
        }
        fabric.lock.lock();
        try {
            checkOpen();
            fabric.checkOpen();
            InetSocketAddress local = localAddress == null
                    ? new InetSocketAddress(remoteAddress.getAddress(), fabric.allocatePort())
                    : localAddress.getPort() == 0 ? new InetSocketAddress(localAddress.getAddress(), fabric.allocatePort()) : localAddress;
            LoopbackConnection connection = new LoopbackConnection(this, false, local, remoteAddress);
            connections.add(connection);
            return connection;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public int pollEvents(ConnectionEventHandler handler, int maxEvents) throws VerbsException {
        int delivered = 0;
        while (delivered < maxEvents) {
            QueuedConnectionEvent event = nextEvent();
            if (event == null) {
                break;
            }
            delivered++;
            handler.onConnectionEvent(event);
        }
        return delivered;
    }

    @Override
    public int awaitEvents(ConnectionEventHandler handler, int maxEvents, long timeout, TimeUnit unit) throws VerbsException, InterruptedException {
        long remaining = unit.toNanos(timeout);
        fabric.lock.lock();
        try {
            while (events.isEmpty() && !closed && !woken && remaining > 0) {
                remaining = eventsAvailable.awaitNanos(remaining);
            }
            woken = false;
        } finally {
            fabric.lock.unlock();
        }
        return pollEvents(handler, maxEvents);
    }

    @Override
    public void wakeup() {
        fabric.lock.lock();
        try {
            if (!closed) {
                woken = true;
                eventsAvailable.signalAll();
            }
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void close() {
        fabric.lock.lock();
        try {
            if (closed) {
                return;
            }
            for (LoopbackConnection connection : new ArrayList<>(connections)) {
                connection.close();
            }
            for (LoopbackListeningEndpoint endpoint : new ArrayList<>(endpoints)) {
                endpoint.close();
            }
            closed = true;
            events.clear();
            eventsAvailable.signalAll();
        } finally {
            fabric.lock.unlock();
        }
    }

    /** Under the fabric lock: queues an event for this manager's handler. Dropped once closed. */
    void deliver(QueuedConnectionEvent event) {
        if (!closed) {
            events.addLast(event);
            eventsAvailable.signalAll();
        }
    }

    /** Under the fabric lock: a passive connection now belongs to this manager. */
    boolean adopt(LoopbackConnection connection) {
        if (closed) {
            return false;
        }
        connections.add(connection);
        return true;
    }

    /** Under the fabric lock. */
    void forget(LoopbackConnection connection) {
        connections.remove(connection);
    }

    /** Under the fabric lock. */
    void forget(LoopbackListeningEndpoint endpoint) {
        endpoints.remove(endpoint);
    }

    private QueuedConnectionEvent nextEvent() throws VerbsException {
        fabric.lock.lock();
        try {
            checkOpen();
            return events.pollFirst();
        } finally {
            fabric.lock.unlock();
        }
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("connection manager is closed", Errno.EBADF);
        }
    }
}
