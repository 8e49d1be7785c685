package org.rpcrdma4j.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.RpcRdmaCm;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * An RPC-over-RDMA version 1 client connection (the requester of RFC 8166) over the verbs
 * contract.
 *
 * <p>Life cycle: {@link #start} resolves the server, posts one receive per credit and sends the
 * connect request with RFC 8797 private data; the connection is up when {@link #established()}
 * completes (with the server's parameters, the RFC 8166 defaults when the accept had no private
 * data). {@link #connect} does both and waits. {@link #close()} ends it: calls not yet answered
 * fail with a {@link ClientClosedException}, and every resource is released. A disconnect by the
 * server fails the calls the same way; the client must still be closed.
 *
 * <p>Calls: {@link #call(CallRequest)} returns at once with a future, completed with the
 * {@link RpcReply}, or exceptionally with an {@link RdmaErrorException} (RDMA_ERROR),
 * {@link MalformedReplyException}, {@link ClientClosedException}, an
 * {@link IllegalArgumentException} (the call fits no way it may be sent), an
 * {@link IllegalStateException} (not connected yet, or its xid is outstanding) or a
 * {@link VerbsException} (its memory could not be registered). Calls go out in submission order,
 * never more outstanding than the server's last credit grant (1 until the first reply). A call's
 * memory is deregistered before its future completes. Cancelling a future does not withdraw the
 * call: its memory stays registered until the reply or the close.
 *
 * <p>Threading and progress: no thread per call. Completions are processed either by one
 * progress thread of the client ({@link ClientConfig#progressThread()}), or by whoever calls
 * {@link #doWork()} (one thread at a time; this is how deterministic tests drive it) and the
 * blocking helpers. Futures complete on that thread: dependent actions MUST NOT block it (use the
 * {@code *Async} variants to hop). {@link #call} and the getters are safe from any thread.
 *
 * <p>Locks, always taken in this order: the poll lock (one poller at a time; also taken by
 * {@link #close()}), the lifecycle lock (read by {@link #call} while it registers memory, written
 * by {@link #close()} so no registration outlives the protection domain), the session's lock
 * (the call table and posting). Futures complete with only the poll lock held (on the polling
 * thread) or none (a call refused in {@link #call}); within {@link #close()} also with the
 * lifecycle lock, and their callbacks then find the client closed.
 *
 * <p>Ownership: the creator owns the client and MUST close it; the provider stays the caller's.
 */
public final class RpcRdmaClient implements AutoCloseable {
    /** Most completion batches taken when the server disconnects, before outstanding calls fail. */
    private static final int DRAIN_PASSES_ON_DISCONNECT = 64;
    private static final long IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final int EVENT_BATCH = 4;

    private final ClientConfig config;
    private final ClientCounters counters;
    private final VerbsResources resources;
    private final ReentrantLock pollLock = new ReentrantLock();
    /** Read: registering a call's memory; write: closing (so no registration outlives the domain). */
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final CompletableFuture<ConnectionParameters> established = new CompletableFuture<>();
    private final Thread progressThread;
    private final long spinNanos;
    private volatile ClientSession session;
    private volatile CompletionProcessor processor;
    private volatile boolean closed;
    private volatile boolean completionQueueFailed;

    private RpcRdmaClient(ClientConfig config, VerbsResources resources, ClientCounters counters) {
        this.config = config;
        this.resources = resources;
        this.counters = counters;
        this.spinNanos = TimeUnit.MICROSECONDS.toNanos(config.spinMicros());
        this.progressThread = config.progressThread() ? new Thread(this::runProgress, "rpcrdma4j-client") : null;
    }

    /**
     * Starts connecting: resolves the server, creates the queue pair, posts the receives and sends
     * the connect request; returns without waiting for the answer.
     *
     * @param provider the verbs provider
     * @param server the server's address
     * @param config the configuration
     * @return the client, owned by the caller; {@link #established()} tells when it is up
     * @throws VerbsException when a step fails (nothing is left allocated)
     */
    public static RpcRdmaClient start(VerbsProvider provider, InetSocketAddress server, ClientConfig config) throws VerbsException {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(config, "config");
        ClientCounters counters = new ClientCounters();
        RpcRdmaClient client = new RpcRdmaClient(config, VerbsResources.open(provider, server, config, counters), counters);
        try {
            client.resources.connection().connect(privateData(config, client.resources.registrar().fastRegistration()));
        } catch (VerbsException | RuntimeException e) {
            client.close();
            throw e;
        }
        if (client.progressThread != null) {
            client.progressThread.setDaemon(true);
            client.progressThread.start();
        }
        return client;
    }

    /**
     * Connects and waits until the connection is established.
     *
     * @param provider the verbs provider
     * @param server the server's address
     * @param config the configuration; {@link ClientConfig#connectTimeout()} bounds the wait
     * @return the connected client, owned by the caller
     * @throws IOException when the server rejects, cannot be reached, or does not answer in time
     *         (nothing is left allocated)
     * @throws InterruptedException when interrupted while waiting
     */
    public static RpcRdmaClient connect(VerbsProvider provider, InetSocketAddress server, ClientConfig config)
            throws IOException, InterruptedException {
        RpcRdmaClient client = start(provider, server, config);
        try {
            client.await(client.established, config.connectTimeout());
            return client;
        } catch (IOException | InterruptedException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /**
     * @return completed with the server's parameters once the connection is established, or
     *         exceptionally with a {@link ClientClosedException} when it could not be
     */
    public CompletableFuture<ConnectionParameters> established() {
        return established.copy();
    }

    /** @return the configuration */
    public ClientConfig config() {
        return config;
    }

    /**
     * Sends a call.
     *
     * @param request the call
     * @return its outcome, completed on the polling thread (see the class comment)
     */
    public CompletableFuture<RpcReply> call(CallRequest request) {
        Objects.requireNonNull(request, "request");
        CompletableFuture<RpcReply> future = new CompletableFuture<>();
        List<ClientSession.Finished> released;
        lifecycle.readLock().lock();
        try {
            ClientSession s = session;
            if (closed || s == null) {
                future.completeExceptionally(closed ? new ClientClosedException("client closed")
                        : new IllegalStateException("not connected yet"));
                return future;
            }
            PreparedCall call;
            try {
                call = PreparedCall.prepare(request, future, resources.registrar(), s.sendLimit(), config.maxSegmentLength());
            } catch (VerbsException | RuntimeException e) {
                future.completeExceptionally(e);
                return future;
            }
            List<ClientSession.Finished> finished = new ArrayList<>(1);
            s.submit(call, finished);
            released = ClientSession.release(finished);
        } finally {
            lifecycle.readLock().unlock();
        }
        ClientSession.complete(released);
        return future;
    }

    /**
     * Sends a call and waits for its reply, making progress itself unless a progress thread runs.
     *
     * @param request the call
     * @param timeout the longest wait; on timeout the call stays outstanding
     * @return the reply (null for a call that expects none)
     * @throws IOException the call's failure ({@link RdmaErrorException}, ...), or an
     *         {@link InterruptedIOException} on timeout
     * @throws InterruptedException when interrupted
     */
    public RpcReply call(CallRequest request, Duration timeout) throws IOException, InterruptedException {
        return await(call(request), timeout);
    }

    /**
     * Waits for a future of this client, making progress itself unless a progress thread runs.
     *
     * @param <T> the result type
     * @param future a future of {@link #call} or {@link #established()}
     * @param timeout the longest wait
     * @return the result
     * @throws IOException the failure when it is one (an unchecked failure is rethrown as it is,
     *         any other is wrapped), or an {@link InterruptedIOException} on timeout
     * @throws InterruptedException when interrupted
     */
    public <T> T await(CompletableFuture<T> future, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (progressThread == null) {
            while (!future.isDone() && deadline - System.nanoTime() > 0) {
                if (doWork() == 0) {
                    idle(Math.min(IDLE_WAIT_NANOS, deadline - System.nanoTime()));
                }
            }
        }
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new InterruptedIOException("no answer within " + timeout);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(cause);
        }
    }

    /**
     * Makes progress once without blocking: delivers connection events, then one batch of
     * completions (replies matched, receives reposted, waiting calls posted, futures completed).
     *
     * <p>Assumptions: no progress thread runs, and one thread at a time calls this.
     *
     * @return the number of events and completions handled (0 when there was nothing to do)
     * @throws IllegalStateException when the client has a progress thread
     */
    public int doWork() {
        if (progressThread != null && Thread.currentThread() != progressThread) {
            throw new IllegalStateException("the client's progress thread makes progress");
        }
        pollLock.lock();
        try {
            if (closed) {
                return 0;
            }
            int work = resources.manager().pollEvents(this::onConnectionEvent, EVENT_BATCH);
            CompletionProcessor p = processor;
            if (p != null && !closed && !completionQueueFailed) {
                work += p.poll();
            }
            return work;
        } catch (VerbsException e) {
            completionQueueFailed = true;
            breakConnection(new ClientClosedException("the completion queue failed", e));
            return 1;
        } finally {
            pollLock.unlock();
        }
    }

    /** @return the server's parameters, or null before the connection is established */
    public ConnectionParameters serverParameters() {
        ClientSession s = session;
        return s == null ? null : s.server();
    }

    /** @return the largest message a call may send inline (0 before the connection is established) */
    public int sendLimit() {
        ClientSession s = session;
        return s == null ? 0 : s.sendLimit();
    }

    /** @return calls posted and not yet answered */
    public int outstandingCalls() {
        ClientSession s = session;
        return s == null ? 0 : s.outstanding();
    }

    /** @return calls waiting for a credit or a send slot */
    public int waitingCalls() {
        ClientSession s = session;
        return s == null ? 0 : s.waiting();
    }

    /** @return whether the connection is established and not gone */
    public boolean isConnected() {
        ClientSession s = session;
        return !closed && s != null && !s.isClosed();
    }

    /** @return a snapshot of the counters */
    public ClientStatistics statistics() {
        return counters.snapshot();
    }

    /**
     * Closes the connection: calls not yet answered fail with a {@link ClientClosedException},
     * the progress thread (if any) stops, and every memory region, the queue pair, completion
     * queue, protection domain and connection manager are released. Closing twice does nothing.
     *
     * @throws UncheckedIOException when the verbs layer refused to release something (everything
     *         else was still released)
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (progressThread != null && progressThread.isAlive() && Thread.currentThread() != progressThread) {
            joinProgressThread();
        }
        pollLock.lock();
        lifecycle.writeLock().lock();
        try {
            ClientClosedException cause = new ClientClosedException("client closed");
            established.completeExceptionally(cause);
            try {
                resources.connection().disconnect();
            } catch (VerbsException e) {
                cause.addSuppressed(e);
            }
            CompletionProcessor p = processor;
            if (p != null) {
                p.fail(cause);
            }
            Exception failed = resources.release();
            if (failed != null) {
                throw new UncheckedIOException(new IOException("releasing the client's resources failed", failed));
            }
        } finally {
            lifecycle.writeLock().unlock();
            pollLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "RpcRdmaClient[" + resources.connection().remoteAddress() + (closed ? " closed" : isConnected() ? " connected" : "")
                + "]";
    }

    private void onConnectionEvent(ConnectionEvent event) {
        switch (event.type()) {
            case ESTABLISHED:
                onEstablished(event.privateData());
                break;
            case REJECTED:
            case UNREACHABLE:
            case CONNECT_ERROR:
                breakConnection(new ClientClosedException("connect failed: " + event.type() + " (status " + event.status() + ")"));
                break;
            case DISCONNECTED:
                // Completions and connection events come through different channels: replies
                // the server sent before it disconnected may still wait in the completion queue.
                // Take them first, so that only calls really left unanswered fail.
                drainCompletionsBeforeBreaking();
                breakConnection(new ClientClosedException("disconnected by the server"));
                break;
            case DEVICE_REMOVAL:
                breakConnection(new ClientClosedException("the RDMA device went away"));
                break;
            default:
                break;
        }
    }

    private void drainCompletionsBeforeBreaking() {
        CompletionProcessor p = processor;
        if (p == null || completionQueueFailed) {
            return;
        }
        try {
            for (int i = 0; i < DRAIN_PASSES_ON_DISCONNECT && p.poll() > 0; i++) {
                // each pass handles a batch of completions
            }
        } catch (VerbsException e) {
            completionQueueFailed = true;
        }
    }

    private void onEstablished(ByteBuffer privateData) {
        if (session != null) {
            return;
        }
        ConnectionParameters server = ConnectionPrivateData.decode(privateData, privateData.position(), privateData.remaining())
                .map(d -> new ConnectionParameters(d.maxReceiveSize(), d.maxSendSize(), d.remoteInvalidate(), true))
                .orElse(ConnectionParameters.DEFAULTS);
        int slotSize = Math.min(server.receiveSize(), config.sendInlineSize());
        MemoryRegion slab;
        try {
            slab = resources.registerSendSlab(config.maxCredits() + config.backchannelCredits(), slotSize);
        } catch (VerbsException e) {
            breakConnection(new ClientClosedException("registering the send buffers failed", e));
            return;
        }
        ClientSession s = new ClientSession(resources.queuePair(), slab, slotSize, config, server, counters, resources.registrar());
        BackchannelResponder responder = config.backchannelHandler() == null ? null
                : new BackchannelResponder(config.backchannelHandler(), config.backchannelCredits(), s, slab, config.maxCredits(),
                        slotSize, counters);
        processor = new CompletionProcessor(resources, s, counters, responder);
        session = s;
        established.complete(server);
    }

    private void breakConnection(ClientClosedException cause) {
        established.completeExceptionally(cause);
        CompletionProcessor p = processor;
        if (p != null) {
            p.fail(cause);
        }
    }

    private void idle(long nanos) throws InterruptedException {
        if (nanos <= 0) {
            return;
        }
        try {
            if (processor == null || completionQueueFailed) {
                Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
                return;
            }
            if (spinNanos > 0 && spinForWork(Math.min(spinNanos, nanos))) {
                return;
            }
            resources.completionQueue().requestNotification();
            if (doWork() == 0) {
                resources.completionQueue().awaitNotification(nanos, TimeUnit.NANOSECONDS);
            }
        } catch (VerbsException e) {
            breakConnection(new ClientClosedException("the completion queue failed", e));
        }
    }

    /** Polls for up to {@code nanos} (ClientConfig.spinMicros); true when a poll found work. */
    private boolean spinForWork(long nanos) {
        long deadline = System.nanoTime() + nanos;
        do {
            Thread.onSpinWait();
            if (doWork() > 0) {
                return true;
            }
        } while (!closed && System.nanoTime() - deadline < 0);
        return false;
    }

    private void runProgress() {
        try {
            while (!closed) {
                if (doWork() == 0) {
                    idle(IDLE_WAIT_NANOS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void joinProgressThread() {
        boolean interrupted = false;
        while (progressThread.isAlive()) {
            try {
                progressThread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Our RFC 8797 parameters; remote invalidation only where chunks are fast-registered, as only those keys can be invalidated. */
    private static ByteBuffer privateData(ClientConfig config, boolean remoteInvalidation) {
        if (!config.advertisePrivateData()) {
            return ByteBuffer.allocate(0);
        }
        ByteBuffer data = ByteBuffer.allocate(RpcRdmaCm.PRIVATE_DATA_BYTES);
        new ConnectionPrivateData(config.sendInlineSize(), config.receiveInlineSize(), remoteInvalidation).encode(data, 0);
        return data;
    }
}
