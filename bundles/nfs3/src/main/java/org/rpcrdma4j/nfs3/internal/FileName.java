package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.rpcrdma4j.nfs3.localfs.PathBytes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * FileName - one filename3 as the bytes the client sent or the directory holds: as in Linux
 * knfsd, any bytes but '/' and NUL ({@link Names} checks), UTF-8 or not, stored and listed
 * byte-exact whatever the server's locale ({@link PathBytes}).
 *
 * <p>Immutable; the bytes are never handed out for writing. Ordered by unsigned bytes (the
 * order of a listing snapshot).
 */
public final class FileName implements Comparable<FileName> {

    /** ".". */
    public static final FileName DOT = new FileName(new byte[] {'.'});
    /** "..". */
    public static final FileName DOT_DOT = new FileName(new byte[] {'.', '.'});

    private final byte[] bytes;

    private FileName(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * Reads a filename3 of at most {@code max} bytes.
     *
     * @throws GarbageArguments if longer (checks of content are {@link Names}'s)
     */
    public static FileName decode(XdrDecodingStream in, int max) throws IOException {
        int length = in.xdrDecodeInt();
        if (length < 0 || length > max) {
            throw new GarbageArguments("name of " + length + " bytes, at most " + max);
        }
        return new FileName(in.xdrDecodeOpaque(length));
    }

    /** The name of a directory entry, exactly as the directory holds it. */
    public static FileName of(Path entry) {
        return new FileName(PathBytes.nameOf(entry));
    }

    /** Writes the name as an XDR opaque. */
    public void encode(XdrEncodingStream out) {
        out.xdrEncodeDynamicOpaque(bytes);
    }

    /** Bytes of the name. */
    public int length() {
        return bytes.length;
    }

    /** Whether the name is empty. */
    public boolean isEmpty() {
        return bytes.length == 0;
    }

    /** Whether some byte of the name is {@code b}. */
    public boolean contains(byte b) {
        for (byte c : bytes) {
            if (c == b) {
                return true;
            }
        }
        return false;
    }

    /** Whether this is "." or "..". */
    public boolean isDot() {
        return equals(DOT) || equals(DOT_DOT);
    }

    /** The entry of this name in a directory; the name MUST have passed a {@link Names} check. */
    public Path resolveIn(Path directory) {
        return directory.resolve(PathBytes.component(bytes));
    }

    @Override
    public int compareTo(FileName other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FileName && Arrays.equals(bytes, ((FileName) other).bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** For messages: the name as UTF-8, bytes that are not shown as U+FFFD. */
    @Override
    public String toString() {
        return "'" + new String(bytes, StandardCharsets.UTF_8) + "'";
    }
}
