package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * SetAttributes - a decoded sattr3: which attributes to set and to what (RFC 1813 §2.6).
 *
 * <p>Each optional field is null when the client does not set it. Times are nanoseconds since
 * the epoch; {@link #SERVER_TIME} asks for the server's current time.
 */
public record SetAttributes(Integer mode, Integer uid, Integer gid, Long size, Long atime, Long mtime) {

    /** Marker time meaning SET_TO_SERVER_TIME. */
    public static final long SERVER_TIME = Long.MIN_VALUE;

    /** A sattr3 that sets nothing. */
    public static final SetAttributes NONE = new SetAttributes(null, null, null, null, null, null);

    /** Reads a sattr3. */
    public static SetAttributes decode(XdrDecodingStream in) throws IOException {
        Integer mode = Xdr3.decodeBool(in) ? in.xdrDecodeInt() & 07777 : null;
        Integer uid = Xdr3.decodeBool(in) ? in.xdrDecodeInt() : null;
        Integer gid = Xdr3.decodeBool(in) ? in.xdrDecodeInt() : null;
        Long size = Xdr3.decodeBool(in) ? in.xdrDecodeLong() : null;
        Long atime = decodeTimeHow(in);
        Long mtime = decodeTimeHow(in);
        return new SetAttributes(mode, uid, gid, size, atime, mtime);
    }

    private static Long decodeTimeHow(XdrDecodingStream in) throws IOException {
        int how = in.xdrDecodeInt();
        switch (how) {
            case Nfs3.DONT_CHANGE: return null;
            case Nfs3.SET_TO_SERVER_TIME: return SERVER_TIME;
            case Nfs3.SET_TO_CLIENT_TIME: return Xdr3.decodeTime(in);
            default: throw new GarbageArguments("time_how " + how);
        }
    }

    /** Whether any attribute is to be set. */
    public boolean isEmpty() {
        return mode == null && uid == null && gid == null && size == null && atime == null && mtime == null;
    }

    /** This sattr3 without the size (for objects created empty). */
    public SetAttributes withoutSize() {
        return new SetAttributes(mode, uid, gid, null, atime, mtime);
    }
}
