package org.rpcrdma4j.fuzz;

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
 * Peer - a small RPC-over-RDMA requester on the verbs contract for fuzzing and churn: like the
 * transport's {@code RawClient}, but with little registered memory (it is created thousands of
 * times), an abrupt {@link #close()} without disconnect, and counts of what it sent and got.
 *
 * <p>Threading: one thread. Ownership: the creator MUST {@link #close()} it.
 */
final class Peer implements AutoCloseable {
    static final int BUFFER = 8 * 1024;
    static final int SENDS = 4;
    static final int RECEIVES = 16;
    static final int SOURCE = 64 * 1024;
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
    private final WorkCompletion[] completions = new WorkCompletion[32];
    private final ArrayDeque<Integer> freeSends = new ArrayDeque<>();
    private final List<byte[]> replies = new ArrayList<>();
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    private int sendsCompleted;
    private int sendsFailed;
    private boolean established;
    private boolean disconnected;
    private boolean closed;

    Peer(VerbsProvider provider, InetSocketAddress server, ConnectionPrivateData privateData) throws VerbsException {
        cm = provider.openConnectionManager();
        connection = cm.createConnection(null, server, Duration.ofSeconds(5));
        pd = connection.device().allocateProtectionDomain();
        cq = connection.device().createCompletionQueue(64);
        sendRegion = pd.registerMemory(ByteBuffer.allocateDirect(SENDS * BUFFER), 0);
        receiveRegion = pd.registerMemory(ByteBuffer.allocateDirect(RECEIVES * BUFFER), Access.LOCAL_WRITE);
        sourceRegion = pd.registerMemory(ByteBuffer.allocateDirect(SOURCE), Access.REMOTE_READ);
        sinkRegion = pd.registerMemory(ByteBuffer.allocateDirect(SOURCE), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        qp = connection.createQueuePair(pd, QueuePairAttributes.builder(cq, cq).sendQueueDepth(SENDS)
                .receiveQueueDepth(RECEIVES).initiatorDepth(1)
                .responderResources(Math.min(4, connection.device().capabilities().maxIncomingReads())).build());
        for (int i = 0; i < SENDS; i++) {
            freeSends.add(i);
        }
        for (int i = 0; i < RECEIVES; i++) {
            postReceive(i);
        }
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
        ByteBuffer data = ByteBuffer.allocate(privateData == null ? 0 : 8);
        if (privateData != null) {
            privateData.encode(data, 0);
        }
        connection.connect(data);
    }

    private void postReceive(int index) throws VerbsException {
        receive.id(RECEIVE_ID + index).buffer(receiveRegion, index * BUFFER, BUFFER).next(null);
        qp.postReceive(receive);
    }

    boolean isEstablished() {
        return established;
    }

    boolean isDisconnected() {
        return disconnected;
    }

    boolean isClosed() {
        return closed;
    }

    Connection connection() {
        return connection;
    }

    /** @return the source region's rkey (chunks the server READs) */
    int rkey() {
        return sourceRegion.rkey();
    }

    /** @return the rkey of the region offered for write and reply chunks */
    int sinkRkey() {
        return sinkRegion.rkey();
    }

    /** @return the address of byte {@code at} of the write/reply chunk region */
    long sinkAddress(int at) {
        return sinkRegion.addressOf(0) + at;
    }

    /** Puts {@code data} at {@code at} of the source region (clamped to it). @return its address */
    long expose(byte[] data, int at) {
        int offset = Math.floorMod(at, SOURCE);
        int length = Math.min(data.length, SOURCE - offset);
        sourceRegion.buffer().put(offset, data, 0, length);
        return sourceRegion.addressOf(offset);
    }

    /** @return the address of byte {@code at} of the source region (any long: a fuzzer may point anywhere) */
    long sourceAddress(int at) {
        return sourceRegion.addressOf(0) + at;
    }

    boolean canSend() {
        return !freeSends.isEmpty() && established && !disconnected && !closed;
    }

    /** SENDs {@code message} (at most {@link #BUFFER} bytes are sent). @return false when no send buffer is free */
    boolean send(byte[] message) throws VerbsException {
        if (!canSend()) {
            return false;
        }
        int slot = freeSends.poll();
        int length = Math.min(message.length, BUFFER);
        sendRegion.buffer().put(slot * BUFFER, message, 0, length);
        send.reset(SendOpcode.SEND, slot, SendWorkRequest.SIGNALED).addSge(sendRegion, slot * BUFFER, length);
        qp.postSend(send);
        return true;
    }

    /** @return events and completions handled */
    int poll() throws VerbsException {
        if (closed) {
            return 0;
        }
        int work = cm.pollEvents(event -> {
            if (event.type() == ConnectionEventType.ESTABLISHED) {
                established = true;
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
                if (wc.isSuccess()) {
                    sendsCompleted++;
                } else {
                    sendsFailed++;
                }
            } else if (wc.isSuccess()) {
                int index = id - RECEIVE_ID;
                byte[] reply = new byte[wc.byteCount()];
                receiveRegion.buffer().get(index * BUFFER, reply);
                replies.add(reply);
                postReceive(index);
            }
        }
        return work + n;
    }

    /** @return SENDs the server's receive took (RC: delivered) */
    int sendsCompleted() {
        return sendsCompleted;
    }

    int sendsFailed() {
        return sendsFailed;
    }

    /** @return the messages received so far, removed */
    List<byte[]> takeReplies() {
        List<byte[]> taken = new ArrayList<>(replies);
        replies.clear();
        return taken;
    }

    /** disconnect() - an orderly disconnect (the peer sees DISCONNECTED). */
    void disconnect() throws VerbsException {
        if (!closed) {
            connection.disconnect();
        }
    }

    /** close() - destroy everything, connected or not (abrupt when no disconnect came first). */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        closed = true;
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
