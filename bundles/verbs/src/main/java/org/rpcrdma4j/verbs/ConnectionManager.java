package org.rpcrdma4j.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A connection manager (an rdma_event_channel and the ids created on it): listens, creates active
 * connections, and delivers the events of all of them.
 *
 * <p>Threading: {@link #pollEvents} and {@link #awaitEvents} MUST be called from one thread at a
 * time (the connection-management thread); the other methods are safe from any thread. A provider
 * wakes a waiting thread for events only: an idle manager costs no CPU.
 * Ownership: the opener owns the manager and MUST close it; closing it closes every listening
 * endpoint and connection still open on it.
 */
public interface ConnectionManager extends AutoCloseable {
    /**
     * Binds and listens (rdma_create_id, rdma_bind_addr, rdma_listen).
     *
     * @param address the local address; port 0 picks a free port
     * @param backlog the most connect requests pending at once
     * @return the listening endpoint, owned by the caller
     * @throws VerbsException EADDRINUSE when the address is taken; EBADF after close
     */
    ListeningEndpoint listen(InetSocketAddress address, int backlog) throws VerbsException;

    /**
     * Creates an active connection and resolves the address and route to the peer
     * (rdma_create_id, rdma_resolve_addr, rdma_resolve_route), blocking up to {@code timeout}. The
     * connection's {@link Connection#device()} is then known, so the caller can create its queue
     * pair and {@link Connection#connect connect}.
     *
     * @param localAddress the source address to bind, or null to let the route choose
     * @param remoteAddress the peer's address
     * @param timeout how long resolution may take
     * @return the new connection, owned by the caller
     * @throws VerbsException ETIMEDOUT, EHOSTUNREACH or ENXIO when the peer cannot be resolved
     */
    Connection createConnection(InetSocketAddress localAddress, InetSocketAddress remoteAddress, Duration timeout) throws VerbsException;

    /**
     * Delivers pending events without blocking.
     *
     * @param handler the handler, called once per event on this thread
     * @param maxEvents the most events to deliver
     * @return the number delivered
     * @throws VerbsException EBADF after close
     */
    int pollEvents(ConnectionEventHandler handler, int maxEvents) throws VerbsException;

    /**
     * Delivers pending events, waiting up to the timeout for the first one.
     *
     * @param handler the handler, called once per event on this thread
     * @param maxEvents the most events to deliver
     * @param timeout the longest wait for the first event
     * @param unit its unit
     * @return the number delivered, 0 on timeout
     * @throws VerbsException EBADF after close
     * @throws InterruptedException when the waiting thread is interrupted
     */
    int awaitEvents(ConnectionEventHandler handler, int maxEvents, long timeout, TimeUnit unit) throws VerbsException, InterruptedException;

    /**
     * Makes the {@link #awaitEvents} in progress return at once (0 when no event is pending), or,
     * when none is in progress, the next one. A waiting connection-management thread sleeps until
     * an event, a wake-up or its timeout, so whoever needs it to act on something that is not a
     * connection event (a close it must finish) wakes it. Any thread; never blocks; does nothing
     * after {@link #close()}.
     */
    void wakeup();

    /** Closes every endpoint and connection still open on this manager, then the channel. Closing twice does nothing. */
    @Override
    void close();
}
