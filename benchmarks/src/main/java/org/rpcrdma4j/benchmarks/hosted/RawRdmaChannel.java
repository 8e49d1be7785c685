package org.rpcrdma4j.benchmarks.hosted;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.testing.rawpeer.PeerShape;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.testing.rawpeer.ReceiveHandler;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * RawRdmaChannel - the RDMA counterpart of {@link TcpChannel}: the thinnest requester the verbs
 * allow (a {@link RawPeer}), so that what a benchmark counts is the server's. Each call is framed
 * (an RDMA_MSG header with empty chunk lists, then the RPC message) into its slot of the peer's
 * registered send memory and posted; the replies land in posted receives, are checked in place
 * and the receives reposted. Nothing is allocated per call: no futures, no reply objects, no
 * copies beyond the one into registered memory that a socket write makes too.
 *
 * <p>Inline calls only (NULL, ECHO): a READ's write chunk is {@link RdmaChannel}'s. The benchmark
 * thread waits by polling the completion queue (yielding), as a blocking socket's caller sleeps
 * in {@code read}.
 */
final class RawRdmaChannel implements RpcChannel {
    private static final int MAX_IN_FLIGHT = 32;
    private static final int SLOT = 4096;
    private static final PeerShape SHAPE = PeerShape.builder().slotBytes(SLOT).sendSlots(MAX_IN_FLIGHT * 2)
            .receiveSlots(MAX_IN_FLIGHT * 2).build();
    /** An RDMA_MSG header without chunks: xid, version, credits, proc, three empty lists. */
    private static final int HEADER_BYTES = 28;

    private final RawPeer peer;
    private final ReceiveHandler checkReply = this::checkReply;
    /** The run in progress, as {@link #checkReply} sees it. */
    private Workload workload;
    private int firstXid;
    private int calls;
    private int seen;
    private int answered;
    private int failures;

    private RawRdmaChannel(RawPeer peer) {
        this.peer = peer;
    }

    /** connect() - connects and waits until established. */
    static RawRdmaChannel connect(VerbsProvider provider, InetSocketAddress server) throws Exception {
        RawPeer peer = RawPeer.open(provider, server, SHAPE, new ConnectionPrivateData(SLOT, SLOT, false));
        try {
            peer.awaitEstablished(CALL_TIMEOUT);
            return new RawRdmaChannel(peer);
        } catch (Exception | Error e) {
            peer.close();
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
        this.workload = workload;
        firstXid = xid;
        calls = n;
        seen = 0;
        answered = 0;
        failures = 0;
        for (int i = 0; i < n; i++) {
            post(workload.calls[i], xid + i, i);
        }
        peer.awaitReceives(n - answered, checkReply, CALL_TIMEOUT.toNanos());
        return failures;
    }

    private void checkReply(ByteBuffer reply, int at, int length) {
        int rpcXid = reply.getInt(at + HEADER_BYTES);
        int index = rpcXid - firstXid;
        boolean ok = length >= HEADER_BYTES && reply.getInt(at + 12) == RpcRdma.RDMA_MSG
                && reply.getInt(at + 16) == 0 && reply.getInt(at + 20) == 0 && reply.getInt(at + 24) == 0
                && index >= 0 && index < calls && (seen & (1 << index)) == 0
                && BenchRpc.isAnswered(reply, at + HEADER_BYTES, length - HEADER_BYTES, rpcXid,
                        workload.replyLength, workload.firstResult);
        if (ok) {
            seen |= 1 << index;
        } else {
            failures++;
        }
        answered++;
    }

    private void post(ByteBuffer call, int xid, int slot) throws VerbsException {
        BenchRpc.setXid(call, xid);
        int at = slot * SLOT;
        int headerBytes = peer.headerAt(at).fixedHeader(xid, RpcRdma.VERSION_1, MAX_IN_FLIGHT, RpcRdma.RDMA_MSG).finish();
        int length = call.remaining();
        peer.sendBuffer().put(at + headerBytes, call, call.position(), length);
        while (!peer.canPostSend()) {
            peer.pollCompletions(checkReply);
        }
        peer.postSend(at, headerBytes + length);
    }

    @Override
    public byte[] wholeReply(Workload workload, int xid) {
        throw new UnsupportedOperationException("the raw RDMA channel checks replies in place");
    }

    @Override
    public void close() throws VerbsException {
        peer.close();
    }
}
