package org.rpcrdma4j.transport.conformance;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * RawClient - a requester built directly on the verbs contract, for tests: it connects with
 * RFC 8797 private data, sends whatever bytes a test gives it (valid calls from
 * {@link CallBuilder} or deliberately malformed headers), exposes chunk data for the server's
 * RDMA READs from a region registered with REMOTE_READ, and collects what the server sends back.
 *
 * <p>Threading: one thread at a time ({@link #poll()} and the senders). Ownership: the test owns
 * it and MUST {@link #close()} it.
 */
public final class RawClient implements AutoCloseable {
    /** Bytes of each send and receive buffer. */
    public static final int BUFFER = 64 * 1024;
    private static final int SENDS = 16;
    private static final int RECEIVES = 32;
    private static final int SOURCE = 8 << 20;
    /** Bytes of the region the server may RDMA WRITE into (write chunks, reply chunks). */
    public static final int SINK = 1 << 20;
    private static final int RECEIVE_ID = 1000;

    private final ConnectionManager cm;
    private final Connection connection;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion sendRegion;
    private final MemoryRegion receiveRegion;
    private final MemoryRegion sourceRegion;
    private final MemoryRegion sinkRegion;
    private final WorkCompletion[] completions = new WorkCompletion[64];
    private final ArrayDeque<Integer> freeSends = new ArrayDeque<>();
    private final List<byte[]> replies = new ArrayList<>();
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    private int sourceUsed;
    private int failedSends;
    private boolean established;
    private boolean disconnected;
    private boolean reposting = true;
    private ConnectionPrivateData accepted;

    /**
     * Creates a client and starts connecting; call {@link #poll()} (with the fabric progressing)
     * until {@link #isEstablished()}.
     *
     * @param privateData what to send with the connect request, or null for none
     */
    public RawClient(VerbsProvider provider, InetSocketAddress server, ConnectionPrivateData privateData) throws VerbsException {
        cm = provider.openConnectionManager();
        connection = cm.createConnection(null, server, Duration.ofSeconds(5));
        pd = connection.device().allocateProtectionDomain();
        cq = connection.device().createCompletionQueue(Math.min(256, connection.device().capabilities().maxCompletionQueueEntries()));
        sendRegion = pd.registerMemory(ByteBuffer.allocateDirect(SENDS * BUFFER), 0);
        receiveRegion = pd.registerMemory(ByteBuffer.allocateDirect(RECEIVES * BUFFER), Access.LOCAL_WRITE);
        sourceRegion = pd.registerMemory(ByteBuffer.allocateDirect(SOURCE), Access.REMOTE_READ | Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        sinkRegion = pd.registerMemory(ByteBuffer.allocateDirect(SINK), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        qp = connection.createQueuePair(pd, QueuePairAttributes.builder(cq, cq).sendQueueDepth(SENDS)
                .receiveQueueDepth(RECEIVES).initiatorDepth(1)
                .responderResources(Math.min(16, connection.device().capabilities().maxIncomingReads())).build());
        for (int i = 0; i < SENDS; i++) {
            freeSends.add(i);
        }
        for (int i = 0; i < RECEIVES; i++) {
            postReceive(i);
        }
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
        ByteBuffer data = null;
        if (privateData != null) {
            data = ByteBuffer.allocate(8);
            privateData.encode(data, 0);
        }
        connection.connect(data == null ? ByteBuffer.allocate(0) : data);
    }

    private void postReceive(int index) throws VerbsException {
        receive.id(RECEIVE_ID + index).buffer(receiveRegion, index * BUFFER, BUFFER).next(null);
        qp.postReceive(receive);
    }

    /** @return true once ESTABLISHED was seen */
    public boolean isEstablished() {
        return established;
    }

    /** @return true once DISCONNECTED was seen */
    public boolean isDisconnected() {
        return disconnected;
    }

    /** @return the server's accept private data, or null */
    public ConnectionPrivateData acceptedParameters() {
        return accepted;
    }

    /** @return this client's end of the connection (for fault injection aimed at it or its peer) */
    public Connection connection() {
        return connection;
    }

    /** @return the local address (what the server sees as the peer) */
    public InetSocketAddress localAddress() {
        return connection.localAddress();
    }

    /**
     * exposeChunk() - copy chunk data into the REMOTE_READ source region.
     *
     * @return the address of the first byte (a segment offset); rkey is {@link #rkey()}
     */
    public long exposeChunk(byte[] data, int from, int length) {
        int at = (sourceUsed + 63) & ~63;
        if (at + length > SOURCE) {
            at = 0;
        }
        sourceRegion.buffer().put(at, data, from, length);
        sourceUsed = at + length + 64;
        return sourceRegion.addressOf(at);
    }

    /** @return the source region's rkey */
    public int rkey() {
        return sourceRegion.rkey();
    }

    /** @return the rkey of the region the server may WRITE into */
    public int sinkRkey() {
        return sinkRegion.rkey();
    }

    /** @return the address of byte {@code at} of the region the server may WRITE into */
    public long sinkAddress(int at) {
        return sinkRegion.addressOf(at);
    }

    /** @return a copy of {@code length} bytes at {@code at} of the region the server WRITEs into */
    public byte[] sinkBytes(int at, int length) {
        byte[] b = new byte[length];
        sinkRegion.buffer().get(at, b);
        return b;
    }

    /** resetSource() - chunk data may be overwritten from the start again. */
    public void resetSource() {
        sourceUsed = 0;
    }

    /**
     * send() - SEND {@code header} followed by {@code body}.
     *
     * @throws IllegalStateException when every send buffer is in flight
     */
    public void send(byte[] header, byte[] body) throws VerbsException {
        Integer slot = freeSends.poll();
        if (slot == null) {
            throw new IllegalStateException("all send buffers are in flight");
        }
        int at = slot * BUFFER;
        sendRegion.buffer().put(at, header);
        sendRegion.buffer().put(at + header.length, body);
        send.reset(SendOpcode.SEND, slot, SendWorkRequest.SIGNALED).addSge(sendRegion, at, header.length + body.length);
        qp.postSend(send);
    }

    /**
     * writeRemote() - RDMA WRITE {@code data} to the server's memory at {@code remoteAddress}
     * under {@code rkey}: what a hostile peer does with a key it has learnt or guessed. A WRITE
     * the server's device refuses completes in error ({@link #failedSends()}) and breaks the
     * connection, as on real RC hardware.
     *
     * @throws IllegalStateException when every send buffer is in flight
     */
    public void writeRemote(byte[] data, long remoteAddress, int rkey) throws VerbsException {
        Integer slot = freeSends.poll();
        if (slot == null) {
            throw new IllegalStateException("all send buffers are in flight");
        }
        int at = slot * BUFFER;
        sendRegion.buffer().put(at, data);
        send.reset(SendOpcode.RDMA_WRITE, slot, SendWorkRequest.SIGNALED).remote(remoteAddress, rkey)
                .addSge(sendRegion, at, data.length);
        qp.postSend(send);
    }

    /** @return the SENDs and WRITEs that completed in error (flushes included) so far */
    public int failedSends() {
        return failedSends;
    }

    /**
     * writeWithForgedKey() - a hostile peer's RDMA WRITE aimed at the server with a key it never
     * gave out: the server's queue pair, the responder, goes to the error state (and ours too).
     */
    public void writeWithForgedKey() throws VerbsException {
        writeRemote(new byte[64], 0x10000L, 0x5eed0bad);
    }

    /**
     * stopReposting() - a stalled peer: receives that complete are no longer posted again, so once
     * the posted ones are used up the server's reply SENDs meet RNR.
     */
    public void stopReposting() {
        reposting = false;
    }

    /** @return true when a send buffer is free */
    public boolean canSend() {
        return !freeSends.isEmpty();
    }

    /**
     * poll() - connection events and completions: replies are collected, receives reposted.
     *
     * @return events and completions handled
     */
    public int poll() throws VerbsException {
        int work = cm.pollEvents(event -> {
            if (event.type() == ConnectionEventType.ESTABLISHED) {
                established = true;
                ByteBuffer pd = event.privateData();
                accepted = ConnectionPrivateData.decode(pd, pd.position(), pd.remaining()).orElse(null);
            } else if (event.type() == ConnectionEventType.DISCONNECTED || event.type() == ConnectionEventType.REJECTED) {
                disconnected = true;
            }
        }, 16);
        int n = cq.poll(completions, completions.length);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            int id = (int) wc.id();
            if (id < RECEIVE_ID) {
                freeSends.add(id);
                failedSends += wc.isSuccess() ? 0 : 1;
            } else if (wc.isSuccess()) {
                int index = id - RECEIVE_ID;
                byte[] reply = new byte[wc.byteCount()];
                receiveRegion.buffer().get(index * BUFFER, reply);
                synchronized (replies) {
                    replies.add(reply);
                }
                if (reposting) {
                    postReceive(index);
                }
            }
        }
        return work + n;
    }

    /** @return the messages received so far, removed from the client */
    public List<byte[]> takeReplies() {
        synchronized (replies) {
            List<byte[]> taken = new ArrayList<>(replies);
            replies.clear();
            return taken;
        }
    }

    /** disconnect() - start an orderly disconnect. */
    public void disconnect() throws VerbsException {
        connection.disconnect();
    }

    @Override
    public void close() throws VerbsException {
        connection.close();
        cq.close();
        sendRegion.deregister();
        receiveRegion.deregister();
        sourceRegion.deregister();
        sinkRegion.deregister();
        pd.close();
        cm.close();
    }
}
