package org.rpcrdma4j.benchmarks.transport;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.testing.rawpeer.PeerShape;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.testing.rawpeer.ReceiveHandler;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * BenchClient - a minimal requester for the transport benchmarks, on a {@link RawPeer}: one
 * pre-encoded call (inline, or with one read chunk over the peer's source region) in the first
 * bytes of its send memory, sent again and again, so the client allocates nothing per call. It
 * keeps {@value #DEPTH} receives posted for the server's replies and counts them
 * ({@link #replies()}), checking in place that each one's transport header names the call's xid.
 *
 * <p>Single-threaded; the benchmark owns it and closes it.
 */
final class BenchClient implements AutoCloseable {
    private static final int DEPTH = 64;
    private static final int SLOT = 4096;
    private static final int XID = 0x12345678;

    private final RawPeer peer;
    private final ReceiveHandler countReply = this::countReply;
    private long replies;
    private int callLength;

    BenchClient(VerbsProvider provider, InetSocketAddress server, int chunkBytes) throws VerbsException {
        PeerShape shape = PeerShape.builder().slotBytes(SLOT).sendSlots(DEPTH).receiveSlots(DEPTH)
                .source(chunkBytes, Access.REMOTE_READ).responderResources(16).build();
        peer = RawPeer.open(provider, server, shape, new ConnectionPrivateData(SLOT, SLOT, false));
    }

    /** encodeCall() - the call every {@link #sendCall()} sends: an RPC body of {@code inlineBytes}, plus one read chunk of {@code chunkBytes}. */
    void encodeCall(int inlineBytes, int chunkBytes) {
        HeaderWriter writer = peer.headerAt(0).fixedHeader(XID, RpcRdma.VERSION_1, 32, RpcRdma.RDMA_MSG);
        if (chunkBytes > 0) {
            writer.readChunk(inlineBytes, peer.memory().rkey(), chunkBytes, peer.memory().sourceAddress(0));
        }
        int header = writer.finish();
        ByteBuffer buffer = peer.sendBuffer();
        for (int i = 0; i < inlineBytes; i++) {
            buffer.put(header + i, (byte) i);
        }
        callLength = header + inlineBytes;
    }

    /** @return true once connected */
    boolean isEstablished() {
        return peer.isEstablished();
    }

    /** sendCall() - post the pre-encoded call. */
    void sendCall() throws VerbsException {
        peer.postSend(0, callLength);
    }

    /** @return whether another SEND fits the send queue */
    boolean canSend() {
        return peer.canPostSend();
    }

    /** @return replies received so far */
    long replies() {
        return replies;
    }

    /** poll() - connection events until established, then SEND completions and replies (each receive reposted). */
    int poll() throws VerbsException {
        int work = peer.isEstablished() ? 0 : peer.pollEvents();
        work += peer.pollCompletions(countReply);
        if (peer.firstFailure() != null) {
            throw new IllegalStateException("benchmark client: " + peer.firstFailure());
        }
        return work;
    }

    private void countReply(ByteBuffer buffer, int offset, int length) {
        int xid = buffer.getInt(offset);
        if (xid != XID) {
            throw new IllegalStateException("benchmark client: a reply names xid 0x" + Integer.toHexString(xid));
        }
        replies++;
    }

    @Override
    public void close() throws VerbsException {
        peer.close();
    }
}
