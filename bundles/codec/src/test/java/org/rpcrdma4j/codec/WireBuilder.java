package org.rpcrdma4j.codec;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * WireBuilder - test utility that lays out RFC 8166 headers word by word, by hand.
 *
 * <p>Deliberately independent of the production encoders: every helper maps
 * one-to-one onto the XDR of RFC 8166 §4.1.2, so a vector built here is an
 * independent statement of the wire format.
 */
final class WireBuilder {

    private int[] words = new int[32];
    private int wordCount;
    private byte[] body = new byte[0];

    static WireBuilder header(int xid, int vers, int credits, int proc) {
        return new WireBuilder().word(xid).word(vers).word(credits).word(proc);
    }

    static WireBuilder msg(int xid, int credits) {
        return header(xid, RpcRdma.VERSION_1, credits, RpcRdma.RDMA_MSG);
    }

    static WireBuilder nomsg(int xid, int credits) {
        return header(xid, RpcRdma.VERSION_1, credits, RpcRdma.RDMA_NOMSG);
    }

    /** Any 32-bit word. */
    WireBuilder word(int value) {
        if (wordCount == words.length) {
            words = Arrays.copyOf(words, words.length * 2);
        }
        words[wordCount++] = value;
        return this;
    }

    /** One read-list item: present, position, handle, length, offset. */
    WireBuilder read(int position, int handle, int length, long offset) {
        return word(RpcRdma.ITEM_PRESENT).word(position).segment(handle, length, offset);
    }

    /** The "absent" discriminator that ends a list or stands for no reply chunk. */
    WireBuilder end() {
        return word(RpcRdma.ITEM_ABSENT);
    }

    /** A write or reply chunk prefix: present and the segment count. */
    WireBuilder chunk(int segmentCount) {
        return word(RpcRdma.ITEM_PRESENT).word(segmentCount);
    }

    /** One segment: handle, length, offset (hyper, most significant word first). */
    WireBuilder segment(int handle, int length, long offset) {
        return word(handle).word(length).word((int) (offset >>> 32)).word((int) offset);
    }

    /** Three empty lists. */
    WireBuilder noChunks() {
        return end().end().end();
    }

    /** Inline body bytes after the header: 0, 1, 2, ... */
    WireBuilder body(int length) {
        body = new byte[length];
        for (int i = 0; i < length; i++) {
            body[i] = (byte) i;
        }
        return this;
    }

    int headerLength() {
        return wordCount * Xdr.UNIT_BYTES;
    }

    int length() {
        return headerLength() + body.length;
    }

    /** The message as bytes. */
    byte[] toBytes() {
        ByteBuffer buffer = ByteBuffer.allocate(length());
        for (int i = 0; i < wordCount; i++) {
            buffer.putInt(words[i]);
        }
        buffer.put(body);
        return buffer.array();
    }

    /** The message in a fresh heap buffer at index 0. */
    ByteBuffer toBuffer() {
        return ByteBuffer.wrap(toBytes());
    }

    /** The message at {@code offset} of a larger direct buffer, as a receive ring would hold it. */
    ByteBuffer toDirectBuffer(int offset, int slack) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(offset + length() + slack);
        buffer.put(offset, toBytes());
        return buffer;
    }
}
