package org.rpcrdma4j.transport.oncrpc;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.BuffersBuffer;
import org.glassfish.grizzly.memory.MemoryManager;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.server.LogThrottle;
import org.rpcrdma4j.server.RpcCallDispatcher;
import org.rpcrdma4j.server.ThreadEnds;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.internal.common.BoundedPool;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CallBridge - the oncrpc4j side of an RDMA transport: each received call becomes an oncrpc4j
 * {@code RpcCall} for the host's programs, and each reply goes back through the call's
 * {@link PendingReply}, with its DDP-eligible item located by the program's
 * {@link UpperLayerBinding}.
 *
 * <p>On the completion loop, per call: detach the reply, consult the {@link ReplyCache} (only
 * for procedures the program's binding calls non-idempotent), and either leave the call to the
 * loop thread that received it ({@link ReceivedCall#runOnReceivingThread}: no hand-off) or hand
 * it to a worker: at most one hand-off. Whichever thread runs it decodes the RPC header and
 * credentials, runs the program, and sends its reply. oncrpc4j's {@link Xdr} reads the body where
 * it was received (the registered receive buffer, the READ sinks): the body is never copied, and
 * the call is released only once its reply is sent. So what a connection holds, received and queued and running, is bounded by the
 * receive contexts it was given (a multiple of its credits): a client that ignores its credits
 * meets RNR, not a server that buffers for it.
 *
 * <p>Back channels (RFC 8167): {@link #backchannel} gives each connection one
 * {@link BackchannelTransport} (what {@code getPeerTransport()} returns), made when a program
 * first asks for it and dropped when the connection closes. The client's replies and the
 * connection's close reach it from a completion loop and are passed to one back-channel
 * thread, which also runs the timeouts: program callbacks never run on a completion loop.
 *
 * <p>Threading: {@link #onCall}, {@link #onBackchannelReply}, {@link #onBackchannelClosed} on
 * a completion loop; {@link #serve} and {@link #sendReply} on workers (or the loop thread that
 * received the call, after its pass); {@link #backchannel} on any thread.
 */
final class CallBridge implements RpcCallHandler {
    private static final Logger LOG = LoggerFactory.getLogger(CallBridge.class);

    /* Events a peer can cause per message: at most one log line per 10 s each. */
    private final LogThrottle orphanReplyLog = new LogThrottle();
    private final LogThrottle refusedCallLog = new LogThrottle();
    private final LogThrottle failedServeLog = new LogThrottle();

    private final RpcCallDispatcher dispatcher;
    private final ReplyCache cache;
    private final List<UpperLayerBinding> bindings;
    /**
     * The largest DDP item a reply's memory is sized for up front ({@link #replyItemBytes}): the
     * largest NFS READ the servers here answer (rtmax of this project's NFSv3 program, the Linux
     * client's largest rsize), so that a client offering a larger write chunk cannot make a call
     * borrow more than a real READ would.
     */
    static final int PRESIZED_ITEM_MAX = 1 << 20;
    private final MemoryManager memoryManager = MemoryManager.DEFAULT_MEMORY_MANAGER;
    private final ScheduledThreadPoolExecutor backchannelThread;
    private final ConcurrentHashMap<RdmaConnection, BackchannelTransport> backchannels = new ConcurrentHashMap<>();
    /**
     * Each connection's reusable call transports (each with its {@link CallXdr}), so a call does not
     * build its task, its RPC transport and its XDR stream anew; dropped when it closes. Bounded by
     * twice the credits the connection grants: what a client that keeps to its credits has in
     * flight, with room for replies still being posted.
     */
    private final ConcurrentHashMap<RdmaConnection, BoundedPool<CallTransport>> transports = new ConcurrentHashMap<>();
    /** Every thread the back-channel executor made (one at a time), joined by {@link #shutdown}. */
    private final List<Thread> backchannelThreads = new CopyOnWriteArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder retransmitsAnswered = new LongAdder();
    private final LongAdder retransmitsDropped = new LongAdder();
    private volatile boolean refusing;
    /** Where a call the receiving loop thread kept goes when it cannot run there in time (onCall's tasks are CallTransports). */
    private final Executor toWorkers = task -> handToWorkers((CallTransport) task);

    CallBridge(RpcCallDispatcher dispatcher, ReplyCache cache, CopyOnWriteArrayList<UpperLayerBinding> bindings,
               String name) {
        this.dispatcher = dispatcher;
        this.cache = cache;
        this.bindings = bindings;
        this.backchannelThread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            backchannelThreads.add(t);
            return t;
        });
        backchannelThread.setRemoveOnCancelPolicy(true);
        backchannelThread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * backchannel() - the back channel of {@code connection}, one per connection.
     *
     * @return the transport for calls to that client; on a connection already closing, one whose
     *         calls fail at once
     */
    BackchannelTransport backchannel(RdmaConnection connection) {
        BackchannelTransport transport = backchannels.computeIfAbsent(connection,
                c -> BackchannelTransport.create(c, backchannelThread));
        if (!connection.isOpen() && backchannels.remove(connection, transport)) {
            // Closing: onBackchannelClosed may have run before this entry existed.
            transport.replies().failAll(closedCause(connection));
        }
        return transport;
    }

    @Override
    public void onBackchannelReply(RdmaConnection connection, int xid, ByteBuffer rpcReply) {
        BackchannelTransport transport = backchannels.get(connection);
        if (transport == null) {
            long held = orphanReplyLog.admit();
            if (held >= 0) {
                LOG.info("Dropping a reply from {} to backward call xid 0x{}: no back channel{}",
                        connection.remoteAddress(), Integer.toHexString(xid), LogThrottle.held(held));
            }
            return;
        }
        runOnBackchannelThread(() -> transport.replies().deliver(xid, rpcReply));
    }

    @Override
    public void onBackchannelReplyRefused(RdmaConnection connection, int xid, String reason) {
        BackchannelTransport transport = backchannels.get(connection);
        if (transport == null) {
            return; // no back channel: nobody waits
        }
        IOException cause = new IOException(reason);
        runOnBackchannelThread(() -> transport.replies().refuse(xid, cause));
    }

    /** @return the call transports of {@code connection} (on the completion loop, as {@link #onCall}) */
    private BoundedPool<CallTransport> transports(RdmaConnection connection) {
        BoundedPool<CallTransport> pool = transports.get(connection);
        if (pool == null) {
            pool = new BoundedPool<>(Math.max(1, 2 * connection.grantedCredits()),
                    home -> new CallTransport(this, connection, home));
            if (connection.isOpen()) {
                // Closing connections keep none: onBackchannelClosed drops their pool.
                transports.put(connection, pool);
            }
        }
        return pool;
    }

    @Override
    public void onBackchannelClosed(RdmaConnection connection) {
        transports.remove(connection);
        BackchannelTransport transport = backchannels.remove(connection);
        if (transport != null) {
            EOFException cause = closedCause(connection);
            runOnBackchannelThread(() -> transport.replies().failAll(cause));
        }
    }

    private static EOFException closedCause(RdmaConnection connection) {
        return new EOFException("RPC-over-RDMA connection to " + connection.remoteAddress()
                + " closed: the backward call (RFC 8167) gets no reply");
    }

    private void runOnBackchannelThread(Runnable task) {
        try {
            backchannelThread.execute(task);
        } catch (RejectedExecutionException e) {
            task.run(); // stopped: finish here rather than leave a caller waiting
        }
    }

    /**
     * shutdown() - the transport stopped: end the back-channel thread (timeouts not yet due are
     * dropped) and wait until the thread itself ended (an executor reports itself terminated a
     * moment before its last thread ends).
     *
     * @param deadlineNanos the {@link System#nanoTime()} instant to wait until
     * @return true when the thread ended by then (or none was ever started)
     */
    boolean shutdown(long deadlineNanos) throws InterruptedException {
        backchannelThread.shutdown();
        return ThreadEnds.awaitEnded(backchannelThreads, deadlineNanos);
    }

    /** @return connections with a back channel in use */
    int backchannels() {
        return backchannels.size();
    }

    /** @return calls handed to programs whose reply has not been sent yet */
    int inFlight() {
        return inFlight.get();
    }

    long retransmitsAnswered() {
        return retransmitsAnswered.sum();
    }

    long retransmitsDropped() {
        return retransmitsDropped.sum();
    }

    /** refuseNewCalls() - the transport is stopping: calls from now on are dropped unanswered. */
    void refuseNewCalls() {
        refusing = true;
    }

    @Override
    public void onCall(ReceivedCall call) {
        PendingReply reply;
        try {
            reply = call.detachReply();
        } catch (RuntimeException e) {
            call.release();
            throw e;
        }
        // Counted before the check, so a stop that sees refusing and then zero in flight cannot miss this call.
        inFlight.incrementAndGet();
        if (refusing) {
            LOG.debug("Dropping call xid 0x{} from {}: the RDMA transport is stopping", Integer.toHexString(reply.xid()),
                    reply.connection().remoteAddress());
            finish(reply, call, null);
            return;
        }
        List<ByteBuffer> body = call.body();
        boolean hasTarget = call.bodyLength() >= RpcMessage.CALL_FIXED_BYTES;
        int program = hasTarget ? Xdr.intAt(body, RpcMessage.PROG_OFFSET) : -1;
        int version = hasTarget ? Xdr.intAt(body, RpcMessage.VERS_OFFSET) : -1;
        int procedure = hasTarget ? Xdr.intAt(body, RpcMessage.PROC_OFFSET) : -1;
        ReplyCache.Key key = null;
        if (hasTarget && cache.isEnabled() && isNonIdempotent(program, version, procedure, body, call.bodyLength())) {
            key = ReplyCache.Key.of(reply.connection().remoteAddress().getAddress(), reply.xid(), body, call.bodyLength());
            ReplyCache.Entry earlier = cache.begin(key);
            if (earlier != null && !earlier.isAnswered()) {
                retransmitsDropped.increment();
                finish(reply, call, null);
                return;
            }
            if (earlier != null) {
                retransmitsAnswered.increment();
                try {
                    reply.send(earlier.reply(), earlier.ddpItemOffset());
                } finally {
                    inFlight.decrementAndGet();
                    call.release();
                }
                return;
            }
        }
        CallTransport transport = transports(reply.connection()).acquire().begin(reply, call, program, version, procedure,
                key);
        if (call.runOnReceivingThread(transport, toWorkers)) {
            return; // leader/followers: this completion thread serves it once its pass ends
        }
        handToWorkers(transport);
    }

    /** handToWorkers() - a call for the host's workers; one the pool refuses is dropped, its resources released. */
    private void handToWorkers(CallTransport transport) {
        try {
            dispatcher.execute(transport.connection(), transport);
        } catch (RejectedExecutionException e) {
            PendingReply reply = transport.reply();
            long held = refusedCallLog.admit();
            if (held >= 0) {
                LOG.warn("Dropping call xid 0x{} from {}: the worker pool refused it ({}){}",
                        Integer.toHexString(reply.xid()), reply.connection().remoteAddress(), e.toString(),
                        LogThrottle.held(held));
            }
            transport.takeAnswer();
            finish(reply, transport.call(), transport.cacheKey());
            transport.releaseHold(); // the worker's, which never ran
            transport.releaseHold(); // the answer's
        }
    }

    /**
     * serve() - on a worker (or the loop thread that received the call): decode the RPC header,
     * run the program (which replies through {@code transport}); a message that got no reply is
     * finished here. Nothing escapes, not even an {@link Error} (the dispatcher answers a
     * program's Error SYSTEM_ERR; this is the last guard): a failure costs the call, never the
     * thread, and the call's receive context, in-flight count and holds are released.
     */
    void serve(CallTransport transport) {
        RpcCallDispatcher.Outcome outcome;
        try {
            outcome = dispatcher.serve(transport.xdr(transport.call().body()), transport);
        } catch (Throwable e) {
            long held = failedServeLog.admit();
            if (held >= 0) {
                LOG.error("Serving call xid 0x{} from {} failed; dropping it{}",
                        Integer.toHexString(transport.reply().xid()), transport.getRemoteSocketAddress(),
                        LogThrottle.held(held), e);
            }
            outcome = RpcCallDispatcher.Outcome.FAILED_UNANSWERED;
        }
        switch (outcome) {
            case GARBAGE:
            case REPLY_DELIVERED:
            case REPLY_UNMATCHED:
            case FAILED_UNANSWERED:
                // Nothing answers these: the message was not a call we could read, or its failure
                // could not be answered either.
                if (transport.takeAnswer()) {
                    finish(transport.reply(), transport.call(), transport.cacheKey());
                    transport.releaseHold();
                }
                break;
            default:
                break;
        }
    }

    /** finish() - a call that gets no reply: forget it in the cache, abandon its reply, release it. */
    private void finish(PendingReply reply, ReceivedCall call, ReplyCache.Key key) {
        inFlight.decrementAndGet();
        if (key != null) {
            cache.forget(key);
        }
        try {
            reply.abandon();
        } finally {
            call.release();
        }
    }

    /**
     * sendReply() - frame and send a program's reply: locate its DDP-eligible item when the client
     * offered a write chunk and the program has a binding, keep a copy in the reply cache, send;
     * then release the call (its receive buffer and sinks go back to the connection).
     */
    void sendReply(CallTransport transport, ByteBuffer message) {
        // Read everything of the transport first: once the reply is posted its pending reply
        // (and the buffer the message may lie in) is reused by a later call of the connection.
        PendingReply reply = transport.reply();
        ReceivedCall call = transport.call();
        ReplyCache.Key key = transport.cacheKey();
        int ddpOffset = -1;
        if (reply.writeChunkCapacity() > 0) {
            ddpOffset = locateItem(message, transport.program(), transport.version(), transport.procedure());
        }
        if (key != null) {
            // The cache keeps a copy, taken before the message can be reused.
            cache.complete(key, message, ddpOffset);
        }
        try {
            try {
                reply.send(message, ddpOffset);
            } catch (IllegalArgumentException e) {
                LOG.warn("The upper-layer binding of program {} version {} procedure {} named a DDP item the reply "
                        + "does not hold ({}); sending it without direct data placement", transport.program(),
                        transport.version(), transport.procedure(), e.getMessage());
                if (key != null) {
                    cache.complete(key, message, -1);
                }
                reply.send(message, -1);
            }
        } finally {
            inFlight.decrementAndGet();
            try {
                call.release();
            } finally {
                transport.releaseHold();
            }
        }
    }

    /**
     * replyItemBytes() - the bytes of DDP-eligible data the reply to this call will carry, known
     * before it is encoded: the client's first write chunk, which it sizes to what it asked for
     * (an NFS READ's count, RFC 8267 §4.2), when the program's binding says the reply may carry
     * such an item; 0 when there is none or it is larger than {@link #PRESIZED_ITEM_MAX} (then
     * the reply grows as it is encoded).
     */
    int replyItemBytes(PendingReply reply, int program, int version, int procedure) {
        long offered = reply.writeChunkCapacity();
        if (offered <= 0 || offered > PRESIZED_ITEM_MAX) {
            return 0;
        }
        for (int i = 0; i < bindings.size(); i++) {
            UpperLayerBinding binding = bindings.get(i);
            if (binding.program() == program) {
                return binding.isDdpEligibleReply(version, procedure) ? (int) offered : 0;
            }
        }
        return 0;
    }

    private boolean isNonIdempotent(int program, int version, int procedure, List<ByteBuffer> body, int length) {
        for (int i = 0; i < bindings.size(); i++) {
            UpperLayerBinding binding = bindings.get(i);
            if (binding.program() == program) {
                return binding.isNonIdempotent(version, procedure, body, length, argumentsOffset(body, length));
            }
        }
        return true;
    }

    /**
     * argumentsOffset() - where a call's procedure arguments begin: after xid, direction, RPC
     * version, program, version, procedure (24 bytes), the credential and the verifier
     * (opaque_auth each: flavor, length, body rounded up to 4 bytes).
     *
     * @return the offset, or -1 when an auth length is beyond RFC 5531's 400 bytes or the message
     */
    static int argumentsOffset(List<ByteBuffer> body, int length) {
        int at = RpcMessage.CALL_FIXED_BYTES;
        for (int auth = 0; auth < 2; auth++) {
            if (at + RpcMessage.AUTH_HEAD_BYTES > length) {
                return -1;
            }
            int bytes = Xdr.intAt(body, at + Xdr.UNIT_BYTES);
            if (bytes < 0 || bytes > RpcMessage.MAX_AUTH_BYTES) {
                return -1;
            }
            at += RpcMessage.AUTH_HEAD_BYTES + (int) Xdr.roundUp(bytes);
        }
        return at <= length ? at : -1;
    }

    private int locateItem(ByteBuffer message, int program, int version, int procedure) {
        for (UpperLayerBinding binding : bindings) {
            if (binding.program() != program || !binding.isDdpEligibleReply(version, procedure)) {
                continue;
            }
            int results = RpcMessage.resultsOffset(message);
            if (results == RpcMessage.NONE) {
                return -1;
            }
            ByteBuffer view = message.duplicate().position(message.position() + results);
            try {
                int at = binding.locateReplyItem(version, procedure, view);
                return at < 0 ? -1 : results + at;
            } catch (RuntimeException e) {
                LOG.warn("Upper-layer binding {} failed on a reply of program {} version {} procedure {}; sending it "
                        + "without direct data placement", binding, program, version, procedure, e);
                return -1;
            }
        }
        return -1;
    }

    /**
     * wrap() - a call body of several views (read chunks) as one Grizzly composite over them, in
     * place. (An inline call's one view is wrapped by its {@link CallTransport}'s reused
     * {@link BodyWrapper}.)
     */
    Buffer wrap(List<ByteBuffer> body) {
        Buffer[] pieces = new Buffer[body.size()];
        for (int i = 0; i < pieces.length; i++) {
            pieces[i] = Buffers.wrap(memoryManager, body.get(i).slice());
        }
        BuffersBuffer composite = BuffersBuffer.create(memoryManager, pieces);
        composite.allowBufferDispose(false);
        return composite;
    }

}
