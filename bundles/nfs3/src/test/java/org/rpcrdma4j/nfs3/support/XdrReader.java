package org.rpcrdma4j.nfs3.support;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.rpcrdma4j.codec.Xdr;

/**
 * XdrReader - an independent, test-side reader of XDR replies, so the tests check the bytes
 * the server sent against RFC 1813 rather than against the server's own encoders.
 */
public final class XdrReader {

    private final ByteBuffer buffer;

    public XdrReader(byte[] bytes) {
        this.buffer = ByteBuffer.wrap(bytes);
    }

    public int readInt() {
        return buffer.getInt();
    }

    public long readLong() {
        return buffer.getLong();
    }

    public boolean readBool() {
        int value = buffer.getInt();
        if (value != 0 && value != 1) {
            throw new AssertionError("XDR bool " + value);
        }
        return value == 1;
    }

    public byte[] readOpaque() {
        int length = buffer.getInt();
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        buffer.position(buffer.position() + Xdr.padding(length));
        return bytes;
    }

    public byte[] readFixed(int length) {
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }

    public String readString() {
        return new String(readOpaque(), StandardCharsets.UTF_8);
    }

    public Fattr readFattr() {
        return new Fattr(readInt(), readInt(), readInt(), readInt(), readInt(), readLong(), readLong(),
                readInt(), readInt(), readLong(), readLong(), readTime(), readTime(), readTime());
    }

    /** post_op_attr: the attributes or null. */
    public Fattr readPostOpAttr() {
        return readBool() ? readFattr() : null;
    }

    /** wcc_data. */
    public Wcc readWcc() {
        WccAttr before = null;
        if (readBool()) {
            before = new WccAttr(readLong(), readTime(), readTime());
        }
        return new Wcc(before, readPostOpAttr());
    }

    /** post_op_fh3: the handle or null. */
    public byte[] readPostOpHandle() {
        return readBool() ? readOpaque() : null;
    }

    /** nfstime3 as nanoseconds. */
    public long readTime() {
        long seconds = Integer.toUnsignedLong(readInt());
        return seconds * 1_000_000_000L + Integer.toUnsignedLong(readInt());
    }

    public int remaining() {
        return buffer.remaining();
    }

    /** fattr3. */
    public record Fattr(int type, int mode, int nlink, int uid, int gid, long size, long used, int rdevMajor,
            int rdevMinor, long fsid, long fileid, long atime, long mtime, long ctime) {
    }

    /** wcc_attr. */
    public record WccAttr(long size, long mtime, long ctime) {
    }

    /** wcc_data. */
    public record Wcc(WccAttr before, Fattr after) {
    }
}
