package org.rpcrdma4j.nfs3;

import java.nio.ByteBuffer;

/**
 * Nfs3Ddp - the NFSv3 upper-layer binding facts of RFC 8267 §5 an RPC-over-RDMA transport
 * needs: which NFSv3 calls and replies carry a DDP-eligible data item, and where that item
 * lies in an encoded reply.
 *
 * <p>DDP-eligible (RFC 8267 §5.1): the opaque data of a READ reply and the path of a READLINK
 * reply; in calls, the opaque data of WRITE and the link data of SYMLINK. Everything else goes
 * inline or, when large (READDIR, READDIRPLUS), through the reply chunk. Stateless; pure
 * functions of their arguments.
 */
public final class Nfs3Ddp {

    private static final int STATUS_BYTES = 4;
    private static final int BOOL_BYTES = 4;
    private static final int FATTR3_BYTES = 84;
    /** READ3resok: count and eof precede the data. */
    private static final int READ_COUNT_EOF_BYTES = 8;

    private Nfs3Ddp() {
    }

    /** Whether the reply of this call may carry a DDP-eligible item (NFSv3 READ and READLINK). */
    public static boolean isDdpEligibleReply(int program, int version, int procedure) {
        return program == Nfs3.PROGRAM && version == Nfs3.VERSION
                && (procedure == Nfs3.NFSPROC3_READ || procedure == Nfs3.NFSPROC3_READLINK);
    }

    /** Whether the arguments of this call may carry a DDP-eligible item (NFSv3 WRITE and SYMLINK). */
    public static boolean isDdpEligibleCall(int program, int version, int procedure) {
        return program == Nfs3.PROGRAM && version == Nfs3.VERSION
                && (procedure == Nfs3.NFSPROC3_WRITE || procedure == Nfs3.NFSPROC3_SYMLINK);
    }

    /**
     * Locates the DDP-eligible item in an encoded NFSv3 READ or READLINK result.
     *
     * <p>Assumptions: {@code result} holds the procedure's result (READ3res or READLINK3res,
     * the bytes after the RPC accepted-reply header) from its position to its limit. It is
     * only read, with absolute gets; its position and limit are not changed.
     *
     * @param procedure NFSPROC3_READ or NFSPROC3_READLINK
     * @param result the encoded result
     * @return the offset, relative to {@code result.position()}, of the item's XDR length word
     *     (the item's bytes follow it; a transport moves those bytes to a write chunk), or -1
     *     if the result has no item: a failure status, another procedure, or a result too short
     */
    public static int locateReplyItem(int procedure, ByteBuffer result) {
        if (procedure != Nfs3.NFSPROC3_READ && procedure != Nfs3.NFSPROC3_READLINK) {
            return -1;
        }
        int base = result.position();
        int available = result.remaining();
        if (available < STATUS_BYTES + BOOL_BYTES || result.getInt(base) != Nfs3.NFS3_OK) {
            return -1;
        }
        int offset = STATUS_BYTES;
        boolean attributes = result.getInt(base + offset) != 0;
        offset += BOOL_BYTES + (attributes ? FATTR3_BYTES : 0);
        if (procedure == Nfs3.NFSPROC3_READ) {
            offset += READ_COUNT_EOF_BYTES;
        }
        if (offset + 4 > available) {
            return -1;
        }
        int length = result.getInt(base + offset);
        return length >= 0 && offset + 4L + length <= available ? offset : -1;
    }
}
