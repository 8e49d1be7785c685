package org.rpcrdma4j.binding.nfs.internal;

import static org.rpcrdma4j.binding.nfs.internal.XdrSteps.NONE;
import static org.rpcrdma4j.binding.nfs.internal.XdrSteps.WORD_BYTES;

import java.nio.ByteBuffer;

/**
 * Nfs3Replies - the DDP-eligible items of NFSv3 replies (RFC 8267 §5.1): the data of a READ
 * reply and the path of a READLINK reply (RFC 1813 §3.3.6, §3.3.5).
 *
 * <pre>
 *   READ3res (NFS3_OK)                      READLINK3res (NFS3_OK)
 *   +--------+----------------+             +--------+----------------+
 *   | status | post_op_attr   |             | status | post_op_attr   |
 *   +--------+----------------+             +--------+----------------+
 *   | count  | eof            |             | length | path ...       |
 *   +--------+----------------+             +--------+----------------+
 *   | length | data ...       |
 *   +--------+----------------+
 *   post_op_attr: bool attributes_follow, then fattr3 (21 words) when true
 * </pre>
 *
 * <p>Stateless; pure functions of their arguments.
 */
public final class Nfs3Replies {
    /** NFS version 3. */
    public static final int VERSION = 3;
    /** NFSPROC3_READLINK: the reply's path is DDP-eligible. */
    public static final int NFSPROC3_READLINK = 5;
    /** NFSPROC3_READ: the reply's data is DDP-eligible. */
    public static final int NFSPROC3_READ = 6;
    /** nfsstat3 NFS3_OK. */
    public static final int NFS3_OK = 0;

    /** fattr3: type, mode, nlink, uid, gid, size (2), used (2), rdev (2), fsid (2), fileid (2), atime, mtime, ctime (2 each). */
    static final int FATTR3_WORDS = 21;
    /** READ3resok: count and eof between the attributes and the data. */
    static final int READ_COUNT_EOF_WORDS = 2;

    private Nfs3Replies() {
    }

    /** @return whether the reply of this NFSv3 procedure may carry a DDP-eligible item */
    public static boolean isDdpEligibleReply(int procedure) {
        return procedure == NFSPROC3_READ || procedure == NFSPROC3_READLINK;
    }

    /**
     * locateReplyItem() - where the data of a READ3res or the path of a READLINK3res lies.
     *
     * <p>Assumptions: {@code result} holds the result from its position to its limit; it is
     * only read, with absolute gets.
     *
     * @param procedure NFSPROC3_READ or NFSPROC3_READLINK (any other: -1)
     * @param result the encoded result
     * @return the offset, relative to {@code result.position()}, of the item's length word, or
     *         -1 for a failure status, a malformed or short result, or another procedure
     */
    public static int locateReplyItem(int procedure, ByteBuffer result) {
        if (!isDdpEligibleReply(procedure)) {
            return NONE;
        }
        int base = result.position();
        int available = result.remaining();
        if (!XdrSteps.fits(available, 0, WORD_BYTES) || XdrSteps.readWord(result, base, 0) != NFS3_OK) {
            return NONE;
        }
        int offset = skipPostOpAttr(result, base, available, WORD_BYTES);
        if (procedure == NFSPROC3_READ) {
            offset = XdrSteps.skipBytes(available, offset, READ_COUNT_EOF_WORDS * WORD_BYTES);
        }
        return XdrSteps.checkItem(result, base, available, offset);
    }

    /** skipPostOpAttr() - steps over a post_op_attr (a bool, then fattr3 when it is true). */
    private static int skipPostOpAttr(ByteBuffer result, int base, int available, int offset) {
        if (!XdrSteps.fits(available, offset, WORD_BYTES)) {
            return NONE;
        }
        switch (XdrSteps.readWord(result, base, offset)) {
            case 0:
                return offset + WORD_BYTES;
            case 1:
                return XdrSteps.skipBytes(available, offset + WORD_BYTES, FATTR3_WORDS * WORD_BYTES);
            default:
                return NONE;
        }
    }

    /** Bit per NFSv3 procedure whose reply the duplicate request cache keeps (see {@link #isNonIdempotent}). */
    private static final int NON_IDEMPOTENT = 1 << 2 | 1 << 7 | 1 << 8 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 12 | 1 << 13
            | 1 << 14 | 1 << 15 | 1 << 21;

    /**
     * isNonIdempotent() - SETATTR, WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME,
     * LINK and COMMIT: the procedures whose retransmission knfsd answers from its reply cache.
     *
     * @param procedure an NFSv3 procedure number
     * @return true for those
     */
    public static boolean isNonIdempotent(int procedure) {
        return procedure >= 0 && procedure < 32 && (NON_IDEMPOTENT & 1 << procedure) != 0;
    }
}
