package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

/**
 * Reply transport headers written word by word from RFC 8166 §4.2-§4.5, for the peer to send.
 */
final class Replies {
    private Replies() {
    }

    /** RDMA_MSG, three empty lists, then the body. */
    static ByteBuffer msg(int xid, int credits, ByteBuffer body) {
        return Wire.words().i(xid, 1, credits, 0, 0, 0, 0).bytes(body).toBuffer();
    }

    /** RDMA_MSG echoing one write chunk of one segment with the bytes written, then the body. */
    static ByteBuffer msgWithWriteChunk(int xid, int credits, int handle, int written, long offset, ByteBuffer body) {
        return Wire.words().i(xid, 1, credits, 0, 0, 1, 1).segment(handle, written, offset).i(0, 0).bytes(body).toBuffer();
    }

    /** RDMA_NOMSG: empty read and write lists, the reply chunk with one segment of the bytes written. */
    static ByteBuffer nomsg(int xid, int credits, int handle, int written, long offset) {
        return Wire.words().i(xid, 1, credits, 1, 0, 0, 1, 1).segment(handle, written, offset).toBuffer();
    }

    /** RDMA_ERROR / ERR_CHUNK. */
    static ByteBuffer errChunk(int xid, int credits) {
        return Wire.words().i(xid, 1, credits, 4, 2).toBuffer();
    }

    /** RDMA_ERROR / ERR_VERS. */
    static ByteBuffer errVers(int xid, int credits, int low, int high) {
        return Wire.words().i(xid, 1, credits, 4, 1, low, high).toBuffer();
    }
}
