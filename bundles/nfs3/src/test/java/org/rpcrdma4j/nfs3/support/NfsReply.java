package org.rpcrdma4j.nfs3.support;

import java.io.IOException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * NfsReply - captures the raw result bytes of a call; {@link #reader()} parses them.
 */
public final class NfsReply implements XdrAble {

    private byte[] bytes = new byte[0];

    @Override
    public void xdrDecode(XdrDecodingStream in) throws IOException {
        Xdr xdr = (Xdr) in;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        while (xdr.hasMoreData()) {
            int word = xdr.xdrDecodeInt();
            out.write(word >>> 24);
            out.write(word >>> 16);
            out.write(word >>> 8);
            out.write(word);
        }
        bytes = out.toByteArray();
    }

    @Override
    public void xdrEncode(XdrEncodingStream out) {
        throw new UnsupportedOperationException("replies are decoded only");
    }

    /** A fresh reader over the result. */
    public XdrReader reader() {
        return new XdrReader(bytes);
    }

    /** The status word (first word of every NFS/MOUNT result that has one). */
    public int status() {
        return reader().readInt();
    }

    /** The result size in bytes. */
    public int size() {
        return bytes.length;
    }

    /** The raw result bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }
}
