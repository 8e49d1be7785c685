package org.rpcrdma4j.nfs4j;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import org.dcache.nfs.status.BadHandleException;
import org.rpcrdma4j.nfs3.localfs.ServerKey;

/**
 * InodeHandle - what this server puts into the file-system part of nfs4j's file handle (the
 * "opaque" of nfs4j's {@code Inode}): which inode, of which type, authenticated with the server
 * key.
 *
 * <pre>
 *  0      1      2                10               18                    34
 * +------+------+----------------+----------------+---------------------+
 * | vers | type | st_dev         | st_ino         | HMAC-SHA256[0..16)  |
 * +------+------+----------------+----------------+---------------------+
 * </pre>
 *
 * <p>nfs4j wraps it in its own 14 bytes (magic, generation, export index, pseudo-fs type), so a
 * handle is 48 bytes, well inside NFSv4's 128. Nothing depends on the server's run: handles
 * survive restarts as long as the key file stays. The MAC makes them unforgeable: a client
 * cannot name an inode it was never given (nfs4j itself trusts any opaque it is handed). The
 * type byte (the S_IFMT bits) guards against an inode number reused by an object of another type.
 *
 * @param type the object's S_IFMT bits shifted right by 12 (1 FIFO, 2 CHR, 4 DIR, 8 REG, 10 LNK...)
 */
public record InodeHandle(int type, long dev, long ino) {

    /** Handle format version. */
    public static final int VERSION = 1;
    /** Bytes of an encoded handle. */
    public static final int BYTES = 34;

    /** Where the MAC starts. */
    public static final int MAC_OFFSET = 18;
    private static final int MAC_BYTES = 16;

    /** The handle of an object with this mode (type bits included), device and inode. */
    public static InodeHandle of(int mode, long dev, long ino) {
        return new InodeHandle((mode >>> 12) & 0xf, dev, ino);
    }

    /** Encodes and signs this handle. */
    public byte[] encode(ServerKey key) {
        byte[] bytes = new byte[BYTES];
        ByteBuffer.wrap(bytes).put((byte) VERSION).put((byte) type).putLong(dev).putLong(ino);
        System.arraycopy(key.mac(bytes, MAC_OFFSET), 0, bytes, MAC_OFFSET, MAC_BYTES);
        return bytes;
    }

    /**
     * Decodes and authenticates an opaque received from a client.
     *
     * @throws BadHandleException (NFS4ERR_BADHANDLE, NFS3ERR_BADHANDLE) if the length, version
     *         or MAC is wrong
     */
    public static InodeHandle decode(byte[] bytes, ServerKey key) throws BadHandleException {
        if (bytes.length != BYTES || bytes[0] != VERSION) {
            throw new BadHandleException("not a file handle of this server");
        }
        byte[] expected = Arrays.copyOf(key.mac(bytes, MAC_OFFSET), MAC_BYTES);
        byte[] presented = Arrays.copyOfRange(bytes, MAC_OFFSET, BYTES);
        if (!MessageDigest.isEqual(expected, presented)) {
            throw new BadHandleException("file handle authentication failed");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes, 1, MAC_OFFSET - 1);
        return new InodeHandle(buffer.get() & 0xff, buffer.getLong(), buffer.getLong());
    }

    /** Whether an object with this mode, device and inode is the one this handle names. */
    public boolean names(int mode, long dev, long ino) {
        return this.dev == dev && this.ino == ino && this.type == ((mode >>> 12) & 0xf);
    }
}
