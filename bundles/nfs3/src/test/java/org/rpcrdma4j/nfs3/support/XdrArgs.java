package org.rpcrdma4j.nfs3.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * XdrArgs - call arguments written by a lambda, with the RFC 1813 pieces tests need.
 */
@FunctionalInterface
public interface XdrArgs extends XdrAble {

    void write(XdrEncodingStream out);

    @Override
    default void xdrEncode(XdrEncodingStream out) {
        write(out);
    }

    @Override
    default void xdrDecode(XdrDecodingStream in) throws IOException {
        throw new UnsupportedOperationException("arguments are encoded only");
    }

    static void string(XdrEncodingStream out, String value) {
        out.xdrEncodeDynamicOpaque(value.getBytes(StandardCharsets.UTF_8));
    }

    /** diropargs3. */
    static void dirop(XdrEncodingStream out, byte[] dir, String name) {
        out.xdrEncodeDynamicOpaque(dir);
        string(out, name);
    }

    /** A sattr3 setting only the mode (or nothing for a negative mode). */
    static void sattrMode(XdrEncodingStream out, int mode) {
        sattr(out, mode, -1, -1, -1);
    }

    /** A sattr3 setting the given fields (negative means unset); times untouched. */
    static void sattr(XdrEncodingStream out, int mode, int uid, int gid, long size) {
        out.xdrEncodeBoolean(mode >= 0);
        if (mode >= 0) {
            out.xdrEncodeInt(mode);
        }
        out.xdrEncodeBoolean(uid >= 0);
        if (uid >= 0) {
            out.xdrEncodeInt(uid);
        }
        out.xdrEncodeBoolean(gid >= 0);
        if (gid >= 0) {
            out.xdrEncodeInt(gid);
        }
        out.xdrEncodeBoolean(size >= 0);
        if (size >= 0) {
            out.xdrEncodeLong(size);
        }
        out.xdrEncodeInt(0);
        out.xdrEncodeInt(0);
    }
}
