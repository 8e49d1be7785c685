package org.rpcrdma4j.nfs3.internal;

import java.nio.ByteBuffer;
import org.rpcrdma4j.nfs3.localfs.ServerKey;
import java.security.MessageDigest;
import java.util.Arrays;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * FileHandle - the NFSv3 file handle of this server: which export, which file system and which
 * inode, authenticated with the server key.
 *
 * <pre>
 *  0      1      2      4            8                16               24                    40
 * +------+------+------+------------+----------------+----------------+---------------------+
 * | vers | type | 0  0 | export id  | fsid (st_dev)  | fileid (ino)   | HMAC-SHA256[0..16)  |
 * +------+------+------+------------+----------------+----------------+---------------------+
 * </pre>
 *
 * <p>Nothing in a handle depends on the server's run: handles survive restarts as long as the
 * key file and the export path stay. The MAC makes handles unforgeable: a client cannot name an
 * inode it was never given. The type byte guards against an inode number being reused by an
 * object of another type.
 */
public record FileHandle(int type, int exportId, long fsid, long fileid) {

    /** Handle format version. */
    public static final int VERSION = 1;
    /** Bytes of an encoded handle. */
    public static final int BYTES = 40;

    /** Where the MAC starts. */
    static final int MAC_OFFSET = 24;
    private static final int MAC_BYTES = 16;

    /** Encodes and signs this handle. */
    public byte[] encode(ServerKey key) {
        byte[] bytes = new byte[BYTES];
        ByteBuffer.wrap(bytes).put((byte) VERSION).put((byte) type).putShort((short) 0)
                .putInt(exportId).putLong(fsid).putLong(fileid);
        System.arraycopy(key.mac(bytes, MAC_OFFSET), 0, bytes, MAC_OFFSET, MAC_BYTES);
        return bytes;
    }

    /**
     * Decodes and authenticates a handle received from a client.
     *
     * @throws NfsException NFS3ERR_BADHANDLE if the length, version or MAC is wrong
     */
    public static FileHandle decode(byte[] bytes, ServerKey key) throws NfsException {
        if (bytes.length != BYTES || bytes[0] != VERSION || bytes[2] != 0 || bytes[3] != 0) {
            throw new NfsException(Nfs3.NFS3ERR_BADHANDLE, "not a handle of this server");
        }
        byte[] expected = Arrays.copyOf(key.mac(bytes, MAC_OFFSET), MAC_BYTES);
        byte[] presented = Arrays.copyOfRange(bytes, MAC_OFFSET, BYTES);
        if (!MessageDigest.isEqual(expected, presented)) {
            throw new NfsException(Nfs3.NFS3ERR_BADHANDLE, "handle authentication failed");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes, 1, MAC_OFFSET - 1);
        int type = buffer.get() & 0xff;
        buffer.getShort();
        return new FileHandle(type, buffer.getInt(), buffer.getLong(), buffer.getLong());
    }

    /** The handle of a file of an export, from its attributes. */
    public static FileHandle of(int exportId, FileAttributes attributes) {
        return new FileHandle(attributes.type(), exportId, attributes.dev(), attributes.ino());
    }

    /** Whether the attributes describe the object this handle names. */
    public boolean names(FileAttributes attributes) {
        return attributes.dev() == fsid && attributes.ino() == fileid && attributes.type() == type;
    }
}
