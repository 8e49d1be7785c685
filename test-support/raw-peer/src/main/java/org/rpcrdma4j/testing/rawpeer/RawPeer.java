package org.rpcrdma4j.testing.rawpeer;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventHandler;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * RawPeer - an RPC-over-RDMA requester built directly on the verbs contract, for tests, fuzzing
 * and benchmarks: it connects with RFC 8797 private data, SENDs well-formed messages (headers by
 * the codec's {@link HeaderWriter}) or any bytes verbatim, exposes chunk data for the server's
 * RDMA READs and memory for its RDMA WRITEs (its {@link PeerMemory}), and takes what the
 * server sends back, either copied ({@link #poll()}, {@link #takeReplies()}) or in place
 * ({@link #pollCompletions(ReceiveHandler)}, allocating nothing).
 *
 * <p>Faults stay visible: SENDs and WRITEs that completed, that failed, receives that failed, and
 * the first failed completion ({@link #firstFailure()}); a timeout names what it waited for.
 *
 * <p>Threading: one thread at a time drives a peer (its pollers and senders); {@link #takeReplies()}
 * may be called from another. Ownership: the creator owns it and MUST {@link #close()} it, which
 * releases every resource it registered, connected or not.
 */
public final class RawPeer implements AutoCloseable {
    private static final long RECEIVE_ID = 1L << 32;
    private static final long UNSLOTTED = -1;
    private static final byte[] EMPTY = new byte[0];

    private final InetSocketAddress server;
    private final PeerShape shape;
    private final PeerResources res;
    private final PeerMemory memory;
    /** The hot path's collaborators, read once: the queues, both buffers, the slot size, the send queue's depth. */
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final ByteBuffer sendBuffer;
    private final ByteBuffer receiveBuffer;
    private final int slotBytes;
    private final int sendDepth;
    private final HeaderWriter headerWriter = new HeaderWriter();
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final ReceiveWorkRequest[] receives;
    private final WorkCompletion[] completions;
    private final int[] freeSlots;
    private final ConnectionEventHandler eventHandler = this::onConnectionEvent;
    private final ReceiveHandler collector = this::collect;
    private final List<byte[]> replies = new ArrayList<>();
    private int freeCount;
    private int sendsInFlight;
    private long receivesHandled;
    private int sendsCompleted;
    private int sendsFailed;
    private int receivesFailed;
    private String firstFailure;
    private boolean reposting = true;
    private boolean established;
    private boolean disconnected;
    private boolean closed;
    private ConnectionEventType lastEvent;
    private ConnectionPrivateData accepted;

    private RawPeer(InetSocketAddress server, PeerShape shape, PeerResources res) {
        this.server = server;
        this.shape = shape;
        this.res = res;
        memory = new PeerMemory(shape, res.sourceRegion, res.sinkRegion);
        qp = res.qp;
        cq = res.cq;
        sendBuffer = res.sendRegion.buffer();
        receiveBuffer = res.receiveRegion.buffer();
        slotBytes = shape.slotBytes();
        sendDepth = shape.sendSlots();
        receives = new ReceiveWorkRequest[shape.receiveSlots()];
        completions = new WorkCompletion[shape.sendSlots() + shape.receiveSlots()];
        freeSlots = new int[shape.sendSlots()];
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
        for (int slot = freeSlots.length - 1; slot >= 0; slot--) {
            freeSlots[freeCount++] = slot;
        }
    }

    /**
     * open() - register the memory of {@code shape}, post every receive and start connecting to
     * {@code server}; then {@link #awaitEstablished(Duration)}, or drive {@link #poll()} (with the
     * fabric progressing) until {@link #isEstablished()}.
     *
     * @param privateData what the connect request carries (RFC 8797), or null for none
     */
    public static RawPeer open(VerbsProvider provider, InetSocketAddress server, PeerShape shape,
                               ConnectionPrivateData privateData) throws VerbsException {
        PeerResources res = PeerResources.open(provider, server, shape);
        RawPeer peer = new RawPeer(server, shape, res);
        try {
            for (int i = 0; i < peer.receives.length; i++) {
                peer.receives[i] = new ReceiveWorkRequest(1).id(RECEIVE_ID + i)
                        .buffer(res.receiveRegion, i * shape.slotBytes(), shape.slotBytes());
                res.qp.postReceive(peer.receives[i]);
            }
            ByteBuffer data = ByteBuffer.allocate(privateData == null ? 0 : 8);
            if (privateData != null) {
                privateData.encode(data, 0);
            }
            res.connection.connect(data);
            return peer;
        } catch (VerbsException | RuntimeException e) {
            peer.closed = true;
            res.releaseAfter(e);
            throw e;
        }
    }

    /** @return the memory and queue sizes this peer was opened with */
    public PeerShape shape() {
        return shape;
    }

    /** @return true once ESTABLISHED was seen */
    public boolean isEstablished() {
        return established;
    }

    /** @return true once DISCONNECTED or REJECTED was seen */
    public boolean isDisconnected() {
        return disconnected;
    }

    /** @return true once {@link #close()} ran */
    public boolean isClosed() {
        return closed;
    }

    /** @return the server's accept private data, or null (none, or not yet established) */
    public ConnectionPrivateData acceptedParameters() {
        return accepted;
    }

    /** @return this peer's end of the connection (for fault injection aimed at it or its remote end) */
    public Connection connection() {
        return res.connection;
    }

    /** @return the peer's chunk memory: source data the server READs, the sink it WRITEs into */
    public PeerMemory memory() {
        return memory;
    }

    /** @return the local address: what the server sees as the peer */
    public InetSocketAddress localAddress() {
        return res.connection.localAddress();
    }

    /**
     * awaitEstablished() - wait on the connection manager's events until ESTABLISHED. Only for
     * fabrics that progress by themselves (threaded loopback, hardware); a deterministic harness
     * drives {@link #poll()} itself.
     *
     * @throws IllegalStateException when the connection was rejected or disconnected instead
     * @throws TimeoutException naming the server and the timeout when nothing came in time
     */
    public void awaitEstablished(Duration timeout) throws VerbsException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!established) {
            if (disconnected) {
                throw new IllegalStateException(this + ": " + lastEvent + " before ESTABLISHED");
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException(this + ": no ESTABLISHED within " + timeout);
            }
            res.cm.awaitEvents(eventHandler, 16, 10, TimeUnit.MILLISECONDS);
        }
    }

    // ---- sending ----

    /** @return true when the peer is connected and a send slot is free */
    public boolean canSend() {
        return freeCount > 0 && established && !disconnected && !closed;
    }

    /**
     * send() - SEND {@code message} verbatim, whatever it holds (a fuzzer's bytes go out as they are).
     *
     * @throws IllegalStateException when every send slot is in flight
     * @throws IllegalArgumentException when the message is longer than a slot
     */
    public void send(byte[] message) throws VerbsException {
        send(message, EMPTY);
    }

    /**
     * send() - SEND {@code header} followed by {@code body} in one message.
     *
     * @throws IllegalStateException when every send slot is in flight
     * @throws IllegalArgumentException when the two are longer than a slot
     */
    public void send(byte[] header, byte[] body) throws VerbsException {
        int length = header.length + body.length;
        int slot = takeSlot(length);
        int at = slot * slotBytes;
        sendBuffer.put(at, header);
        sendBuffer.put(at + header.length, body);
        post(SendOpcode.SEND, slot, at, length);
    }

    /**
     * sendMessage() - SEND a well-formed RDMA_MSG: a header with empty chunk lists, then {@code rpcMessage}.
     */
    public void sendMessage(int xid, int credits, byte[] rpcMessage) throws VerbsException {
        int slot = takeSlot(rpcMessage.length);
        int at = slot * slotBytes;
        int header = headerAt(at).fixedHeader(xid, RpcRdma.VERSION_1, credits, RpcRdma.RDMA_MSG).finish();
        if (header + rpcMessage.length > slotBytes) {
            freeSlots[freeCount++] = slot;
            throw new IllegalArgumentException(this + ": a " + (header + rpcMessage.length) + "-byte message in a "
                    + slotBytes + "-byte slot");
        }
        sendBuffer.put(at + header, rpcMessage);
        post(SendOpcode.SEND, slot, at, header + rpcMessage.length);
    }

    /**
     * writeRemote() - RDMA WRITE {@code data} to the server's memory at {@code remoteAddress}
     * under {@code rkey}: what a hostile peer does with a key it learnt or guessed. A WRITE the
     * server's device refuses completes in error ({@link #sendsFailed()}) and breaks the
     * connection, as on real RC hardware.
     *
     * @throws IllegalStateException when every send slot is in flight
     */
    public void writeRemote(byte[] data, long remoteAddress, int rkey) throws VerbsException {
        int slot = takeSlot(data.length);
        int at = slot * slotBytes;
        sendBuffer.put(at, data);
        send.reset(SendOpcode.RDMA_WRITE, slot, SendWorkRequest.SIGNALED).remote(remoteAddress, rkey)
                .addSge(res.sendRegion, at, data.length);
        qp.postSend(send);
        sendsInFlight++;
    }

    private int takeSlot(int length) {
        if (length > slotBytes) {
            throw new IllegalArgumentException(this + ": a " + length + "-byte message in a " + slotBytes
                    + "-byte slot");
        }
        if (freeCount == 0) {
            throw new IllegalStateException(this + ": all " + sendDepth + " send slots are in flight");
        }
        return freeSlots[--freeCount];
    }

    private void post(SendOpcode opcode, long id, int at, int length) throws VerbsException {
        send.reset(opcode, id, SendWorkRequest.SIGNALED).addSge(res.sendRegion, at, length);
        qp.postSend(send);
        sendsInFlight++;
    }

    // ---- sending without slots: the benchmarks' zero-allocation path ----

    /** @return the registered send memory ({@link PeerShape#sendSlots()} slots of {@link PeerShape#slotBytes()}) */
    public ByteBuffer sendBuffer() {
        return sendBuffer;
    }

    /** @return the peer's one header writer, wrapped over one slot's bytes of the send memory from {@code at} */
    public HeaderWriter headerAt(int at) {
        return headerWriter.wrap(sendBuffer, at, Math.min(slotBytes, sendBuffer.capacity() - at));
    }

    /** @return true when the send queue has room for another {@link #postSend(int, int)} */
    public boolean canPostSend() {
        return sendsInFlight < sendDepth;
    }

    /**
     * postSend() - SEND bytes {@code at} to {@code at + length} of the send memory as they are.
     * The caller owns those bytes: they MUST NOT change until the SEND completed, and MUST NOT be
     * a slot that {@link #send(byte[], byte[])} may take meanwhile. Allocates nothing.
     *
     * @throws IllegalStateException when the send queue is full ({@link #canPostSend()})
     */
    public void postSend(int at, int length) throws VerbsException {
        if (!canPostSend()) {
            throw new IllegalStateException(this + ": the send queue is full (" + sendsInFlight + " in flight)");
        }
        post(SendOpcode.SEND, UNSLOTTED, at, length);
    }

    // ---- completions and connection events ----

    /** stopReposting() - a stalled peer: receives that complete are no longer posted again. */
    public void stopReposting() {
        reposting = false;
    }

    /**
     * poll() - connection events, then completions: messages received are copied for
     * {@link #takeReplies()} and their receives reposted.
     *
     * @return events and completions handled
     */
    public int poll() throws VerbsException {
        return closed ? 0 : pollEvents() + pollCompletions(collector);
    }

    /** @return connection events handled */
    public int pollEvents() throws VerbsException {
        return closed ? 0 : res.cm.pollEvents(eventHandler, 16);
    }

    /**
     * pollCompletions() - hand every message received to {@code handler} in place and repost its
     * receive; count SEND and WRITE completions and free their slots. Allocates nothing while
     * nothing fails.
     *
     * @return completions handled
     */
    public int pollCompletions(ReceiveHandler handler) throws VerbsException {
        if (closed) {
            return 0;
        }
        int n = cq.poll(completions, completions.length);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            long id = wc.id();
            if (id < RECEIVE_ID) {
                onSendCompletion(wc, id);
            } else if (wc.isSuccess()) {
                int index = (int) (id - RECEIVE_ID);
                handler.onReceive(receiveBuffer, index * slotBytes, wc.byteCount());
                receivesHandled++;
                if (reposting) {
                    qp.postReceive(receives[index].next(null));
                }
            } else {
                receivesFailed++;
                noteFailure("receive ", id - RECEIVE_ID, wc);
            }
        }
        return n;
    }

    private void onSendCompletion(WorkCompletion wc, long id) {
        sendsInFlight--;
        if (id != UNSLOTTED) {
            freeSlots[freeCount++] = (int) id;
        }
        if (wc.isSuccess()) {
            sendsCompleted++;
        } else {
            sendsFailed++;
            noteFailure("send ", id, wc);
        }
    }

    private void noteFailure(String kind, long id, WorkCompletion wc) {
        if (firstFailure == null) {
            firstFailure = kind + id + ": " + wc;
        }
    }

    /**
     * awaitReceives() - poll completions (yielding when there are none) until {@code count} more
     * messages were handed to {@code handler}. Only for fabrics that progress by themselves.
     * Allocates nothing while nothing fails.
     *
     * @throws IllegalStateException when a work request fails meanwhile (naming it)
     * @throws TimeoutException naming how many of the messages came within {@code timeoutNanos}
     */
    public void awaitReceives(int count, ReceiveHandler handler, long timeoutNanos) throws VerbsException, TimeoutException {
        long target = receivesHandled + count;
        int failures = sendsFailed + receivesFailed;
        long deadline = System.nanoTime() + timeoutNanos;
        while (receivesHandled < target) {
            if (pollCompletions(handler) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    pollEvents();
                    throw new TimeoutException(this + ": " + (count - (target - receivesHandled)) + " of " + count
                            + " messages within " + Duration.ofNanos(timeoutNanos));
                }
                Thread.yield();
            }
            if (sendsFailed + receivesFailed != failures) {
                throw new IllegalStateException(this + ": a work request failed: " + firstFailure);
            }
        }
    }

    /** awaitReplies() - {@link #awaitReceives} of {@code count} messages, copied. @return them, removed */
    public List<byte[]> awaitReplies(int count, Duration timeout) throws VerbsException, TimeoutException {
        awaitReceives(count, collector, timeout.toNanos());
        return takeReplies();
    }

    private void collect(ByteBuffer buffer, int offset, int length) {
        byte[] message = new byte[length];
        buffer.get(offset, message);
        synchronized (replies) {
            replies.add(message);
        }
    }

    private void onConnectionEvent(ConnectionEvent event) {
        lastEvent = event.type();
        if (event.type() == ConnectionEventType.ESTABLISHED) {
            established = true;
            ByteBuffer data = event.privateData();
            accepted = data == null ? null : ConnectionPrivateData.decode(data, data.position(), data.remaining()).orElse(null);
        } else if (event.type() == ConnectionEventType.DISCONNECTED || event.type() == ConnectionEventType.REJECTED) {
            disconnected = true;
        }
    }

    /** @return the messages received (by {@link #poll()}) so far, removed from the peer */
    public List<byte[]> takeReplies() {
        synchronized (replies) {
            List<byte[]> taken = new ArrayList<>(replies);
            replies.clear();
            return taken;
        }
    }

    /** @return SENDs and WRITEs that completed successfully (RC: the server's side took them) */
    public int sendsCompleted() {
        return sendsCompleted;
    }

    /** @return SENDs and WRITEs that completed in error, flushes included */
    public int sendsFailed() {
        return sendsFailed;
    }

    /** @return receives that completed in error (flushes of a broken connection included) */
    public int receivesFailed() {
        return receivesFailed;
    }

    /**
     * @return the first failed completion, described, or null when none failed: the cause, where
     *         the flushes that follow it on a broken queue pair are only consequences
     */
    public String firstFailure() {
        return firstFailure;
    }

    /** disconnect() - start an orderly disconnect (the server sees DISCONNECTED); nothing once closed. */
    public void disconnect() throws VerbsException {
        if (!closed) {
            res.connection.disconnect();
        }
    }

    /**
     * close() - destroy the connection without a disconnect (abrupt when none came first) and
     * release every region, queue and domain the peer holds. A second call does nothing.
     */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        closed = true;
        res.release();
    }

    @Override
    public String toString() {
        return "raw peer to " + server + " (" + (established ? "established" : "not established")
                + (disconnected ? ", " + lastEvent : "") + (closed ? ", closed" : "") + ", sends in flight " + sendsInFlight
                + ", failed sends " + sendsFailed + ", failed receives " + receivesFailed + ")";
    }
}
