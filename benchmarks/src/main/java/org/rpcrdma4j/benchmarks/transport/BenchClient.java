package org.rpcrdma4j.benchmarks.transport;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionOpcode;
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
 * BenchClient - a minimal requester for the transport benchmarks: one pre-encoded call (inline,
 * or with one read chunk over a REMOTE_READ region), sent again and again with a reused work
 * request, so the client allocates nothing per call. It keeps {@value #RECEIVE_DEPTH} receives
 * posted for the server's replies, reposts each with its own reused work request, and counts the
 * replies ({@link #replies()}), checking each one's transport header names the call's xid.
 *
 * <p>Single-threaded; the benchmark owns it and closes it.
 */
final class BenchClient implements AutoCloseable {
    private static final int SEND_DEPTH = 64;
    static final int RECEIVE_DEPTH = 64;
    private static final int RECEIVE_SIZE = 4096;
    private static final int XID = 0x12345678;

    private final ConnectionManager cm;
    private final Connection connection;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion sendRegion;
    private final MemoryRegion sourceRegion;
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final MemoryRegion receiveRegion;
    private final ReceiveWorkRequest[] receives = new ReceiveWorkRequest[RECEIVE_DEPTH];
    private final WorkCompletion[] completions = new WorkCompletion[SEND_DEPTH + RECEIVE_DEPTH];
    private long replies;
    private int callLength;
    private int inFlight;
    private boolean established;

    BenchClient(VerbsProvider provider, InetSocketAddress server, int chunkBytes) throws VerbsException {
        cm = provider.openConnectionManager();
        connection = cm.createConnection(null, server, Duration.ofSeconds(5));
        pd = connection.device().allocateProtectionDomain();
        cq = connection.device().createCompletionQueue((SEND_DEPTH + RECEIVE_DEPTH) * 2);
        sendRegion = pd.registerMemory(ByteBuffer.allocateDirect(4096), 0);
        sourceRegion = pd.registerMemory(ByteBuffer.allocateDirect(Math.max(chunkBytes, 1)), Access.REMOTE_READ);
        receiveRegion = pd.registerMemory(ByteBuffer.allocateDirect(RECEIVE_DEPTH * RECEIVE_SIZE), Access.LOCAL_WRITE);
        qp = connection.createQueuePair(pd, QueuePairAttributes.builder(cq, cq).sendQueueDepth(SEND_DEPTH)
                .receiveQueueDepth(RECEIVE_DEPTH).initiatorDepth(1).responderResources(16).build());
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
        for (int i = 0; i < RECEIVE_DEPTH; i++) {
            receives[i] = new ReceiveWorkRequest(1).id(i).buffer(receiveRegion, i * RECEIVE_SIZE, RECEIVE_SIZE);
            qp.postReceive(receives[i]);
        }
        ByteBuffer data = ByteBuffer.allocate(8);
        new ConnectionPrivateData(4096, 4096, false).encode(data, 0);
        connection.connect(data);
    }

    /** encodeCall() - the call every {@link #sendCall()} sends: an RPC body of {@code inlineBytes}, plus one read chunk of {@code chunkBytes}. */
    void encodeCall(int inlineBytes, int chunkBytes) {
        ByteBuffer buffer = sendRegion.buffer();
        HeaderWriter writer = new HeaderWriter().wrap(buffer, 0, buffer.capacity())
                .fixedHeader(XID, RpcRdma.VERSION_1, 32, RpcRdma.RDMA_MSG);
        if (chunkBytes > 0) {
            writer.readChunk(inlineBytes, sourceRegion.rkey(), chunkBytes, sourceRegion.address());
        }
        int header = writer.finish();
        for (int i = 0; i < inlineBytes; i++) {
            buffer.put(header + i, (byte) i);
        }
        callLength = header + inlineBytes;
    }

    /** @return true once connected */
    boolean isEstablished() {
        return established;
    }

    /** sendCall() - post the pre-encoded call. */
    void sendCall() throws VerbsException {
        send.reset(SendOpcode.SEND, 1, SendWorkRequest.SIGNALED).addSge(sendRegion, 0, callLength);
        qp.postSend(send);
        inFlight++;
    }

    /** @return whether another SEND fits the send queue */
    boolean canSend() {
        return inFlight < SEND_DEPTH;
    }

    /** @return replies received so far */
    long replies() {
        return replies;
    }

    /** poll() - connection events, SEND completions, and replies (each receive reposted). */
    int poll() throws VerbsException {
        int work = 0;
        if (!established) {
            work += cm.pollEvents(e -> established |= e.type() == ConnectionEventType.ESTABLISHED, 4);
        }
        int n = cq.poll(completions, completions.length);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            if (!wc.isSuccess()) {
                throw new IllegalStateException("benchmark client: " + wc);
            }
            if (wc.opcode() != CompletionOpcode.RECV) {
                inFlight--;
                continue;
            }
            int slot = (int) wc.id();
            int xid = receiveRegion.buffer().getInt(slot * RECEIVE_SIZE);
            if (xid != XID) {
                throw new IllegalStateException("benchmark client: a reply names xid 0x" + Integer.toHexString(xid));
            }
            replies++;
            qp.postReceive(receives[slot].next(null));
        }
        return work + n;
    }

    @Override
    public void close() throws VerbsException {
        connection.close();
        cq.close();
        sendRegion.deregister();
        sourceRegion.deregister();
        receiveRegion.deregister();
        pd.close();
        cm.close();
    }
}
