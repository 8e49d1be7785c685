package org.rpcrdma4j.client;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** A fluent builder of big-endian XDR words, for byte-exact expectations written from the RFC 8166 layouts. */
final class Wire {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static Wire words() {
        return new Wire();
    }

    Wire i(int... values) {
        for (int v : values) {
            out.write(v >>> 24);
            out.write(v >>> 16);
            out.write(v >>> 8);
            out.write(v);
        }
        return this;
    }

    Wire hyper(long value) {
        return i((int) (value >>> 32), (int) value);
    }

    /** A read item: present, position, handle, length, offset. */
    Wire readItem(int position, int handle, int length, long offset) {
        return i(1, position, handle, length).hyper(offset);
    }

    /** A segment: handle, length, offset. */
    Wire segment(int handle, int length, long offset) {
        return i(handle, length).hyper(offset);
    }

    Wire bytes(byte[] data) {
        out.writeBytes(data);
        return this;
    }

    Wire bytes(ByteBuffer data) {
        byte[] copy = new byte[data.remaining()];
        data.duplicate().get(copy);
        return bytes(copy);
    }

    byte[] toBytes() {
        return out.toByteArray();
    }

    ByteBuffer toBuffer() {
        return ByteBuffer.wrap(toBytes());
    }
}
