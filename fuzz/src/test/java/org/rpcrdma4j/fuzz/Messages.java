package org.rpcrdma4j.fuzz;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.testing.rawpeer.RawPeer;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

/**
 * Messages - RPC-over-RDMA messages built field by field from fuzzer data: mostly near-valid
 * values (version 1, known procedures, aligned positions, the peer's own rkey and addresses) so
 * that the fuzzer gets past the decoder, with every field free to take any value.
 */
final class Messages {
    private Messages() {
    }

    /** A call header with read list, write list and reply chunk, then an inline body; READ data placed in the peer's memory. */
    static byte[] call(RawPeer peer, FuzzedDataProvider data) {
        ByteBuffer b = ByteBuffer.allocate(FuzzBed.PEER_SHAPE.slotBytes());
        b.putInt(data.consumeInt());
        b.putInt(data.consumeInt(0, 15) == 0 ? data.consumeInt() : RpcRdma.VERSION_1);
        b.putInt(data.consumeInt(0, 7) == 0 ? data.consumeInt() : data.consumeInt(0, 64));
        int proc = data.consumeInt(0, 15);
        b.putInt(proc < 8 ? RpcRdma.RDMA_MSG : proc < 12 ? RpcRdma.RDMA_NOMSG : proc == 15 ? data.consumeInt() : proc - 10);
        for (int n = data.consumeInt(0, 5); n > 0 && b.remaining() > 64; n--) {
            b.putInt(RpcRdma.ITEM_PRESENT);
            b.putInt(data.consumeInt(0, 7) == 0 ? data.consumeInt() : 4 * data.consumeInt(0, 64));
            segment(b, peer, data, true);
        }
        b.putInt(RpcRdma.ITEM_ABSENT);
        for (int chunks = data.consumeInt(0, 3); chunks > 0 && b.remaining() > 128; chunks--) {
            b.putInt(RpcRdma.ITEM_PRESENT);
            int segments = data.consumeInt(0, 7) == 0 ? data.consumeInt() : data.consumeInt(0, 3);
            b.putInt(segments);
            for (int s = Math.min(Math.max(segments, 0), 5); s > 0 && b.remaining() > 64; s--) {
                segment(b, peer, data, false);
            }
        }
        b.putInt(RpcRdma.ITEM_ABSENT);
        if (data.consumeBoolean()) {
            b.putInt(RpcRdma.ITEM_PRESENT);
            int segments = data.consumeInt(0, 7) == 0 ? data.consumeInt() : data.consumeInt(0, 3);
            b.putInt(segments);
            for (int s = Math.min(Math.max(segments, 0), 5); s > 0 && b.remaining() > 64; s--) {
                segment(b, peer, data, false);
            }
        } else {
            b.putInt(RpcRdma.ITEM_ABSENT);
        }
        byte[] body = data.consumeBytes(Math.min(b.remaining(), data.consumeInt(0, 1024)));
        b.put(body);
        byte[] m = new byte[b.position()];
        b.get(0, m);
        return m;
    }

    /** One segment: handle, length, offset; a read segment's data is what the server's READ will find. */
    private static void segment(ByteBuffer b, RawPeer peer, FuzzedDataProvider data, boolean read) {
        int rkey = peer == null ? 0 : read ? peer.memory().rkey() : peer.memory().sinkRkey();
        b.putInt(data.consumeInt(0, 7) == 0 ? data.consumeInt() : rkey);
        int length = data.consumeInt(0, 7) == 0 ? data.consumeInt() : data.consumeInt(0, 20_000);
        b.putInt(length);
        int at = data.consumeInt(0, FuzzBed.PEER_SHAPE.sourceBytes());
        long offset = data.consumeInt(0, 7) == 0 ? data.consumeLong()
                : peer == null ? at : read ? peer.memory().sourceAddress(at) : peer.memory().sinkAddress(at);
        b.putLong(offset);
        if (read && peer != null && data.consumeBoolean()) {
            byte[] chunk = data.consumeBytes(Math.max(0, Math.min(length, 20_000)));
            int from = Math.floorMod(at, FuzzBed.PEER_SHAPE.sourceBytes());
            peer.memory().exposeAt(from, chunk, 0, Math.min(chunk.length, FuzzBed.PEER_SHAPE.sourceBytes() - from));
        }
    }

    /** Private data of any content: RFC 8797 or garbage. */
    static ConnectionPrivateData privateData(FuzzedDataProvider data) {
        int send = 1024 * data.consumeInt(1, 256);
        int receive = 1024 * data.consumeInt(1, 256);
        return new ConnectionPrivateData(send, receive, data.consumeBoolean());
    }

    /** A valid RDMA_MSG call: no chunks, inline an AUTH_NONE call header of NFSv3 NULL. */
    static byte[] validCall(int xid) {
        int headerBytes = Xdr.wordsToBytes(RpcRdma.MIN_MSG_HEADER_WORDS);
        ByteBuffer b = ByteBuffer.allocate(headerBytes + RpcMessage.NULL_AUTH_CALL_HEADER_BYTES);
        new HeaderWriter().wrap(b, 0, headerBytes).fixedHeader(xid, RpcRdma.VERSION_1, 8, RpcRdma.RDMA_MSG).finish();
        RpcMessage.putCallHeader(b.position(headerBytes), xid, 100003, 3, 0);
        return b.array();
    }

    /** An RPC reply message of {@code length} bytes (at least the xid). */
    static byte[] rpcReply(int xid, int length) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(4, length & ~3));
        b.putInt(0, xid);
        return b.array();
    }
}
