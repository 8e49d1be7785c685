package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.ByteBufferArray;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * Xdr3 - the shared XDR pieces of RFC 1813 (nfs_fh3, filename3, post_op_attr, wcc_data,
 * post_op_fh3, sattr3) that the procedures decode and encode.
 *
 * <p>File names ({@link FileName}) and symbolic link data are bytes, as in knfsd; the other
 * strings (MOUNT paths) are UTF-8 on the wire.
 */
public final class Xdr3 {

    /** Longest file name component accepted. */
    public static final int NAME_MAX = 255;
    /** Longest path (symbolic link data, MNT dirpath) accepted. */
    public static final int PATH_MAX = 4096;

    private Xdr3() {
    }

    /** Reads an nfs_fh3, refusing a length over NFS3_FHSIZE as garbage. */
    public static byte[] decodeHandle(XdrDecodingStream in) throws IOException {
        int length = in.xdrDecodeInt();
        if (length < 0 || length > Nfs3.NFS3_FHSIZE) {
            throw new GarbageArguments("nfs_fh3 of " + length + " bytes");
        }
        return in.xdrDecodeOpaque(length);
    }

    /** Reads a variable-length opaque of at most {@code max} bytes (symbolic link data). */
    public static byte[] decodeOpaque(XdrDecodingStream in, int max) throws IOException {
        int length = in.xdrDecodeInt();
        if (length < 0 || length > max) {
            throw new GarbageArguments("opaque of " + length + " bytes, at most " + max);
        }
        return in.xdrDecodeOpaque(length);
    }

    /** Reads an opaque string of at most {@code max} bytes and decodes it as UTF-8 (strict). */
    public static String decodeString(XdrDecodingStream in, int max) throws IOException {
        int length = in.xdrDecodeInt();
        if (length < 0 || length > max) {
            throw new GarbageArguments("string of " + length + " bytes, at most " + max);
        }
        byte[] bytes = in.xdrDecodeOpaque(length);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new GarbageArguments("string is not UTF-8");
        }
    }

    /** Writes a string as a UTF-8 opaque. */
    public static void encodeString(XdrEncodingStream out, String value) {
        out.xdrEncodeDynamicOpaque(value.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes an 8-byte verifier (cookieverf3, createverf3, writeverf3) from a long. */
    public static void encodeVerifier(XdrEncodingStream out, long verifier) {
        out.xdrEncodeLong(verifier);
    }

    /** Reads an 8-byte verifier as a long. */
    public static long decodeVerifier(XdrDecodingStream in) throws IOException {
        return in.xdrDecodeLong();
    }

    /** Writes post_op_attr: the attributes if known, else FALSE. */
    public static void encodePostOpAttr(XdrEncodingStream out, FileAttributes attributes) {
        out.xdrEncodeBoolean(attributes != null);
        if (attributes != null) {
            attributes.encode(out);
        }
    }

    /** Writes post_op_attr for a path, reading its attributes now (FALSE if that fails). */
    public static void encodePostOpAttr(XdrEncodingStream out, Path path) {
        encodePostOpAttr(out, path == null ? null : readQuietly(path));
    }

    /** Writes wcc_data: pre_op_attr (wcc_attr of {@code before}) and post_op_attr. */
    public static void encodeWcc(XdrEncodingStream out, FileAttributes before, FileAttributes after) {
        out.xdrEncodeBoolean(before != null);
        if (before != null) {
            before.encodeWcc(out);
        }
        encodePostOpAttr(out, after);
    }

    /** Writes wcc_data with no attributes at all. */
    public static void encodeEmptyWcc(XdrEncodingStream out) {
        encodeWcc(out, null, null);
    }

    /** Writes post_op_fh3. */
    public static void encodePostOpHandle(XdrEncodingStream out, byte[] handle) {
        out.xdrEncodeBoolean(handle != null);
        if (handle != null) {
            out.xdrEncodeDynamicOpaque(handle);
        }
    }

    /** The attributes of a path now, or null if they cannot be read (for optional attributes). */
    public static FileAttributes readQuietly(Path path) {
        try {
            return FileAttributes.read(path);
        } catch (IOException e) {
            return null;
        }
    }

    /** Reads an nfstime3 as nanoseconds since the epoch (seconds are unsigned). */
    public static long decodeTime(XdrDecodingStream in) throws IOException {
        long seconds = Integer.toUnsignedLong(in.xdrDecodeInt());
        long nanos = Integer.toUnsignedLong(in.xdrDecodeInt());
        if (nanos >= 1_000_000_000L) {
            throw new GarbageArguments("nfstime3 nseconds " + nanos);
        }
        return seconds * 1_000_000_000L + nanos;
    }

    /** Writes an nfstime3. */
    public static void encodeTime(XdrEncodingStream out, long nanos) {
        FileAttributes.encodeTime(out, nanos);
    }

    /** Reads an XDR bool that must be 0 or 1. */
    public static boolean decodeBool(XdrDecodingStream in) throws IOException {
        int value = in.xdrDecodeInt();
        if (value != 0 && value != 1) {
            throw new GarbageArguments("bool " + value);
        }
        return value == 1;
    }

    /** A garbage-arguments failure from the decoders, for IOExceptions on the decode path. */
    public static GarbageArguments garbage(String what) {
        return new GarbageArguments(what);
    }

    /**
     * Reads a WRITE payload: opaque data of at most {@code max} bytes, as read-only views of where
     * the call was received, not a copy. Over RPC-over-RDMA that is the registered receive buffer
     * and the READ sinks the data was pulled into (direct memory, so FileChannel writes it without
     * the JDK's bounce copy); over TCP, oncrpc4j's record buffer. A payload larger than one READ
     * sink spans several (a 1 MiB WRITE, four sinks of 256 KiB): it comes back as one view per
     * piece, in order. The views are valid while the call is served: the procedures decode, run
     * and reply within the dispatch, and both transports keep a call's bytes until then
     * (rpcrdma4j releases the call once its reply is sent; oncrpc4j never disposes a record
     * during its dispatch).
     *
     * <p>Why pieces: decoding a 1 MiB WRITE's payload into a byte[] (or letting Grizzly's
     * toByteBuffer gather a payload that spans several pieces into a new heap buffer) allocates
     * every byte written, and the JDK copies a heap buffer once more into a direct one to write
     * it; the views cost neither.
     *
     * @return the payload's pieces: read-only, each positioned at 0, together {@code length} bytes
     */
    public static ByteBuffer[] decodeData(XdrDecodingStream in, int max) throws IOException {
        int length = in.xdrDecodeInt();
        if (length < 0 || length > max) {
            throw new GarbageArguments("data of " + length + " bytes, at most " + max);
        }
        if (!(in instanceof Xdr)) {
            return new ByteBuffer[] {ByteBuffer.wrap(in.xdrDecodeOpaque(length))};
        }
        Buffer buffer = ((Xdr) in).asBuffer();
        int start = buffer.position();
        int padded = length + org.rpcrdma4j.codec.Xdr.padding(length);
        if (buffer.remaining() < padded) {
            throw new GarbageArguments("data of " + length + " bytes, but " + buffer.remaining() + " bytes left in the call");
        }
        ByteBuffer[] views;
        if (length == 0) {
            views = new ByteBuffer[] {buffer.toByteBuffer(start, start).slice().asReadOnlyBuffer()};
        } else {
            // toByteBufferArray sets the position and limit of the buffer's own pieces; restore()
            // puts them back, so the views are sliced first.
            ByteBufferArray pieces = buffer.toByteBufferArray(start, start + length);
            try {
                ByteBuffer[] array = pieces.getArray();
                int n = pieces.size();
                views = new ByteBuffer[n];
                for (int i = 0; i < n; i++) {
                    views[i] = array[i].slice().asReadOnlyBuffer();
                }
            } finally {
                pieces.restore();
                pieces.recycle();
            }
        }
        buffer.position(start + padded);
        return views;
    }

    /** @return the bytes the pieces hold together */
    public static long remaining(ByteBuffer[] pieces) {
        long n = 0;
        for (ByteBuffer piece : pieces) {
            n += piece.remaining();
        }
        return n;
    }
}
