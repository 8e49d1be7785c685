package org.rpcrdma4j.benchmarks.hosted;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * RdmaChannel - the Java RPC-over-RDMA client on one connection, without a progress thread: the
 * benchmark thread sends, then makes progress itself while it waits (polling, then blocking on
 * the completion channel), as a blocking socket's caller sleeps in {@code read}.
 *
 * <p>Calls go inline (heap messages, copied into the client's registered send buffers); a READ
 * offers one write chunk over a direct buffer of this channel, one per slot in flight, reused
 * from call to call (the client registers it for each call and deregisters it before the reply
 * completes, as a Linux client registers an NFS READ's pages).
 */
final class RdmaChannel implements RpcChannel {
    private final RpcRdmaClient client;
    private final ByteBuffer[] sinks;
    private final CompletableFuture<?>[] pending;

    private RdmaChannel(RpcRdmaClient client, int maxInFlight) {
        this.client = client;
        this.sinks = new ByteBuffer[maxInFlight];
        this.pending = new CompletableFuture<?>[maxInFlight];
    }

    /**
     * connect() - connects and waits until established.
     *
     * @param maxInFlight the most calls one workload sends at once (the credits the client asks for)
     * @param spinMicros how long the waiting caller polls before it sleeps (ClientConfig.spinMicros)
     */
    static RdmaChannel connect(VerbsProvider provider, InetSocketAddress server, int maxInFlight, int spinMicros)
            throws Exception {
        ClientConfig config = ClientConfig.builder().maxCredits(Math.max(maxInFlight, 2)).progressThread(false)
                .spinMicros(spinMicros).build();
        return new RdmaChannel(RpcRdmaClient.connect(provider, server, config), maxInFlight);
    }

    @Override
    public int run(Workload workload, int xid) throws Exception {
        int n = workload.inFlight();
        for (int i = 0; i < n; i++) {
            pending[i] = client.call(request(workload, i, xid + i));
        }
        int failures = 0;
        for (int i = 0; i < n; i++) {
            RpcReply reply = (RpcReply) client.await(pending[i], CALL_TIMEOUT);
            pending[i] = null;
            if (!isAnswered(reply, workload, xid + i)) {
                failures++;
            }
        }
        return failures;
    }

    /** The hot-path check: over RDMA a READ's body is the reduced reply, its data the write chunk. */
    private static boolean isAnswered(RpcReply reply, Workload workload, int xid) {
        ByteBuffer body = reply.body();
        if (workload.ddpBytes == 0) {
            return BenchRpc.isAnswered(body, body.remaining(), xid, workload.replyLength, workload.firstResult);
        }
        return reply.proc() == RpcRdma.RDMA_MSG && reply.writeChunkCount() == 1
                && reply.writeChunk(0).remaining() == workload.ddpBytes
                && BenchRpc.isAnswered(body, body.remaining(), xid,
                        workload.replyLength - (int) Xdr.roundUp(workload.ddpBytes), workload.firstResult);
    }

    @Override
    public byte[] wholeReply(Workload workload, int xid) throws Exception {
        RpcReply reply = client.call(request(workload, 0, xid), CALL_TIMEOUT);
        ByteBuffer body = reply.body();
        byte[] reduced = new byte[body.remaining()];
        body.get(reduced);
        if (workload.ddpBytes == 0) {
            return reduced;
        }
        if (reply.proc() != RpcRdma.RDMA_MSG || reply.writeChunkCount() != 1
                || reply.writeChunk(0).remaining() != workload.ddpBytes) {
            throw new IllegalStateException(workload + ": the data did not come by RDMA WRITE into the write chunk: " + reply);
        }
        // RFC 8166 §3.4.5: the item's bytes (and round-up) go back after its length word.
        ByteBuffer data = reply.writeChunk(0);
        int at = workload.itemLast ? reduced.length : BenchRpc.RESULTS_OFFSET + 4;
        if (reduced.length < at) {
            throw new IllegalStateException(workload + ": reduced reply of " + reduced.length + " bytes has no item length");
        }
        ByteBuffer whole = ByteBuffer.allocate(reduced.length + (int) Xdr.roundUp(data.remaining()));
        whole.put(reduced, 0, at).put(data).position(at + (int) Xdr.roundUp(workload.ddpBytes)).put(reduced, at, reduced.length - at);
        return whole.array();
    }

    private CallRequest request(Workload workload, int slot, int xid) {
        ByteBuffer message = workload.calls[slot];
        workload.beforeSend.accept(message);
        BenchRpc.setXid(message, xid);
        CallRequest.Builder request = CallRequest.builder(message);
        if (workload.ddpBytes > 0) {
            request.writeChunk(sink(slot, workload.ddpBytes));
        }
        if (workload.callItemBytes > 0) {
            request.readChunk(BenchRpc.WRITE_DATA_OFFSET, workload.callItemBytes);
        }
        return request.build();
    }

    private ByteBuffer sink(int slot, int bytes) {
        ByteBuffer sink = sinks[slot];
        if (sink == null || sink.capacity() < bytes) {
            sink = ByteBuffer.allocateDirect(bytes);
            sinks[slot] = sink;
        }
        return sink.clear().limit(bytes);
    }

    @Override
    public void close() {
        client.close();
    }
}
