package org.rpcrdma4j.benchmarks.hosted;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
 * RawRdmaChannel - the RDMA counterpart of {@link TcpChannel}: the thinnest requester the verbs
 * allow, so that what a benchmark counts is the server's. Each call is framed (an RDMA_MSG
 * header with empty chunk lists, then the RPC message) into its slot of one registered send
 * buffer and posted with a reused work request; the replies land in posted receives, are checked
 * in place and the receives reposted. Nothing is allocated per call: no futures, no reply
 * objects, no copies beyond the one into registered memory that a socket write makes too.
 *
 * <p>Inline calls only (NULL, ECHO): a READ's write chunk is {@link RdmaChannel}'s. The benchmark
 * thread waits by polling the completion queue (yielding), as a blocking socket's caller sleeps
 * in {@code read}.
 */
final class RawRdmaChannel implements RpcChannel {
    private static final int MAX_IN_FLIGHT = 32;
    private static final int SLOT = 4096;
    private static final int SEND_DEPTH = MAX_IN_FLIGHT * 2;
    private static final int RECEIVE_DEPTH = MAX_IN_FLIGHT * 2;
    /** An RDMA_MSG header without chunks: xid, version, credits, proc, three empty lists. */
    private static final int HEADER_BYTES = 28;

    private final ConnectionManager cm;
    private final Connection connection;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion sendRegion;
    private final MemoryRegion receiveRegion;
    private final HeaderWriter header = new HeaderWriter();
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final ReceiveWorkRequest[] receives = new ReceiveWorkRequest[RECEIVE_DEPTH];
    private final WorkCompletion[] completions = new WorkCompletion[SEND_DEPTH + RECEIVE_DEPTH];
    private boolean established;
    private int sendsInFlight;

    private RawRdmaChannel(VerbsProvider provider, InetSocketAddress server) throws VerbsException {
        cm = provider.openConnectionManager();
        Connection c = null;
        ProtectionDomain p = null;
        CompletionQueue q = null;
        MemoryRegion s = null;
        MemoryRegion r = null;
        try {
            c = cm.createConnection(null, server, Duration.ofSeconds(5));
            p = c.device().allocateProtectionDomain();
            q = c.device().createCompletionQueue(SEND_DEPTH + RECEIVE_DEPTH);
            s = p.registerMemory(ByteBuffer.allocateDirect(MAX_IN_FLIGHT * SLOT), 0);
            r = p.registerMemory(ByteBuffer.allocateDirect(RECEIVE_DEPTH * SLOT), Access.LOCAL_WRITE);
            qp = c.createQueuePair(p, QueuePairAttributes.builder(q, q).sendQueueDepth(SEND_DEPTH)
                    .receiveQueueDepth(RECEIVE_DEPTH).build());
        } catch (VerbsException | RuntimeException e) {
            if (r != null) {
                r.deregister();
            }
            if (s != null) {
                s.deregister();
            }
            if (q != null) {
                q.close();
            }
            if (c != null) {
                c.close();
            }
            if (p != null) {
                p.close();
            }
            cm.close();
            throw e;
        }
        connection = c;
        pd = p;
        cq = q;
        sendRegion = s;
        receiveRegion = r;
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
        for (int i = 0; i < RECEIVE_DEPTH; i++) {
            receives[i] = new ReceiveWorkRequest(1).id(i).buffer(receiveRegion, i * SLOT, SLOT);
            qp.postReceive(receives[i]);
        }
        ByteBuffer data = ByteBuffer.allocate(8); // RFC 8797 private data: magic, version, flags, two sizes
        new ConnectionPrivateData(SLOT, SLOT, false).encode(data, 0);
        connection.connect(data);
    }

    /** connect() - connects and waits (polling the manager) until established. */
    static RawRdmaChannel connect(VerbsProvider provider, InetSocketAddress server) throws Exception {
        RawRdmaChannel channel = new RawRdmaChannel(provider, server);
        try {
            long deadline = System.nanoTime() + CALL_TIMEOUT.toNanos();
            while (!channel.established) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("raw RDMA channel: not established within " + CALL_TIMEOUT);
                }
                channel.cm.awaitEvents(e -> channel.established |= e.type() == ConnectionEventType.ESTABLISHED, 4, 10,
                        TimeUnit.MILLISECONDS);
            }
            return channel;
        } catch (Exception | Error e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public int run(Workload workload, int xid) throws Exception {
        int n = workload.inFlight();
        if (n > MAX_IN_FLIGHT || workload.ddpBytes != 0) {
            throw new IllegalArgumentException("the raw RDMA channel sends at most " + MAX_IN_FLIGHT
                    + " inline calls at once: " + workload);
        }
        for (int i = 0; i < n; i++) {
            post(workload.calls[i], xid + i, i);
        }
        int failures = 0;
        int seen = 0;
        int answered = 0;
        long deadline = System.nanoTime() + CALL_TIMEOUT.toNanos();
        while (answered < n) {
            int got = cq.poll(completions, completions.length);
            if (got == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("raw RDMA channel: " + (n - answered) + " replies missing after " + CALL_TIMEOUT);
                }
                Thread.yield();
                continue;
            }
            for (int c = 0; c < got; c++) {
                WorkCompletion wc = completions[c];
                if (!wc.isSuccess()) {
                    throw new IllegalStateException("raw RDMA channel: " + wc);
                }
                if (wc.opcode() != CompletionOpcode.RECV) {
                    sendsInFlight--;
                    continue;
                }
                int slot = (int) wc.id();
                ByteBuffer reply = receiveRegion.buffer();
                int at = slot * SLOT;
                int rpcXid = reply.getInt(at + HEADER_BYTES);
                int index = rpcXid - xid;
                boolean ok = wc.byteCount() >= HEADER_BYTES && reply.getInt(at + 12) == RpcRdma.RDMA_MSG
                        && reply.getInt(at + 16) == 0 && reply.getInt(at + 20) == 0 && reply.getInt(at + 24) == 0
                        && index >= 0 && index < n && (seen & (1 << index)) == 0
                        && BenchRpc.isAnswered(reply, at + HEADER_BYTES, wc.byteCount() - HEADER_BYTES, rpcXid,
                                workload.replyLength, workload.firstResult);
                if (ok) {
                    seen |= 1 << index;
                } else {
                    failures++;
                }
                answered++;
                qp.postReceive(receives[slot].next(null));
            }
        }
        return failures;
    }

    private void post(ByteBuffer call, int xid, int slot) throws VerbsException {
        BenchRpc.setXid(call, xid);
        ByteBuffer buffer = sendRegion.buffer();
        int at = slot * SLOT;
        int headerBytes = header.wrap(buffer, at, SLOT).fixedHeader(xid, RpcRdma.VERSION_1, MAX_IN_FLIGHT, RpcRdma.RDMA_MSG).finish();
        int length = call.remaining();
        buffer.put(at + headerBytes, call, call.position(), length);
        while (sendsInFlight >= SEND_DEPTH) {
            int got = cq.poll(completions, 1);
            if (got == 1 && completions[0].opcode() != CompletionOpcode.RECV) {
                sendsInFlight--;
            } else if (got == 1) {
                throw new IllegalStateException("raw RDMA channel: a reply before its call was sent: " + completions[0]);
            }
        }
        send.reset(SendOpcode.SEND, slot, SendWorkRequest.SIGNALED).addSge(sendRegion, at, headerBytes + length);
        qp.postSend(send);
        sendsInFlight++;
    }

    @Override
    public byte[] wholeReply(Workload workload, int xid) {
        throw new UnsupportedOperationException("the raw RDMA channel checks replies in place");
    }

    @Override
    public void close() throws VerbsException {
        try {
            connection.close();
            cq.close();
            sendRegion.deregister();
            receiveRegion.deregister();
            pd.close();
        } finally {
            cm.close();
        }
    }
}
