package org.rpcrdma4j.binding.nfs.internal;

import static org.rpcrdma4j.binding.nfs.internal.XdrSteps.NONE;
import static org.rpcrdma4j.binding.nfs.internal.XdrSteps.WORD_BYTES;

import java.nio.ByteBuffer;
import java.util.List;
import org.rpcrdma4j.codec.Xdr;

/**
 * Nfs4Compounds - finds the first DDP-eligible item of an NFSv4.x COMPOUND reply: the data of
 * the first READ or the link text of the first READLINK (RFC 8267 §6.1).
 *
 * <pre>
 *   COMPOUND4res (RFC 7530 §16.2, RFC 8881 §16.2)
 *   +--------+-----------------+-------+-------+-----------+-------+-----------+---
 *   | status | tag (opaque<>)  | count | resop | result... | resop | result... |
 *   +--------+-----------------+-------+-------+-----------+-------+-----------+---
 *
 *   READ4res (NFS4_OK)                 READLINK4res (NFS4_OK)
 *   +--------+-----+--------+------    +--------+--------+-----------
 *   | status | eof | length | data     | status | length | link text
 *   +--------+-----+--------+------    +--------+--------+-----------
 * </pre>
 *
 * <p>The results before the item are stepped over by {@link Nfs4ResultSkips}, which knows the
 * operations clients put before READ and READLINK. An unknown operation there ends the walk with
 * no item, and so does a result whose status is not NFS4_OK (the server stopped there). The
 * COMPOUND's own status is not consulted: a READ that succeeded before a later operation failed
 * still carries its data. Stateless; no allocation.
 */
public final class Nfs4Compounds {
    /** NFS4_OPAQUE_LIMIT (RFC 7531): the longest tag a COMPOUND4args may carry. */
    private static final int TAG_LIMIT = 1024;

    private Nfs4Compounds() {
    }

    /**
     * minorVersion() - the minor version of a COMPOUND4args (RFC 7531: tag, a utf8str_cs, then
     * minorversion), read in place.
     *
     * @param call the RPC call message, in XDR order across views; only read, with absolute gets
     * @param callLength its length in bytes
     * @param argumentsOffset where the COMPOUND4args begins in it, or -1
     * @return the minor version, or -1 when it cannot be read (no offset, a tag beyond
     *         NFS4_OPAQUE_LIMIT or the message)
     */
    public static int minorVersion(List<ByteBuffer> call, int callLength, int argumentsOffset) {
        if (argumentsOffset < 0 || argumentsOffset > callLength - 2 * WORD_BYTES) {
            return -1;
        }
        int tag = Xdr.intAt(call, argumentsOffset);
        if (tag < 0 || tag > TAG_LIMIT) {
            return -1;
        }
        int at = argumentsOffset + WORD_BYTES + (int) Xdr.roundUp(tag);
        return at <= callLength - WORD_BYTES ? Xdr.intAt(call, at) : -1;
    }

    /**
     * locateReplyItem() - where the first READ data or READLINK link text of a COMPOUND4res lies.
     *
     * <p>Assumptions: {@code result} holds the COMPOUND4res from its position to its limit; it
     * is only read, with absolute gets.
     *
     * @param result the encoded COMPOUND4res
     * @return the offset, relative to {@code result.position()}, of the item's length word, or -1
     *         when there is none: no READ or READLINK, a failed one, an operation before it that
     *         cannot be stepped over, or a malformed or short result
     */
    public static int locateReplyItem(ByteBuffer result) {
        int base = result.position();
        int available = result.remaining();
        int offset = XdrSteps.skipBytes(available, 0, WORD_BYTES); // status
        offset = XdrSteps.skipOpaque(result, base, available, offset); // tag
        if (!XdrSteps.fits(available, offset, WORD_BYTES)) {
            return NONE;
        }
        int count = XdrSteps.readWord(result, base, offset);
        offset += WORD_BYTES;
        // Each result takes at least its opcode word, so the walk ends within available / 4 steps.
        for (int index = 0; index < count; index++) {
            if (!XdrSteps.fits(available, offset, WORD_BYTES)) {
                return NONE;
            }
            int opcode = XdrSteps.readWord(result, base, offset);
            offset += WORD_BYTES;
            if (opcode == Nfs4.OP_READ) {
                return locateReadData(result, base, available, offset);
            }
            if (opcode == Nfs4.OP_READLINK) {
                return locateLinkText(result, base, available, offset);
            }
            offset = Nfs4ResultSkips.skipResult(opcode, result, base, available, offset);
        }
        return NONE;
    }

    /** locateReadData() - the data of a READ4res at {@code offset}: after status and eof. */
    private static int locateReadData(ByteBuffer result, int base, int available, int offset) {
        if (!isOk(result, base, available, offset)) {
            return NONE;
        }
        int item = XdrSteps.skipBytes(available, offset + WORD_BYTES, WORD_BYTES); // eof
        return XdrSteps.checkItem(result, base, available, item);
    }

    /** locateLinkText() - the link text of a READLINK4res at {@code offset}: after status. */
    private static int locateLinkText(ByteBuffer result, int base, int available, int offset) {
        if (!isOk(result, base, available, offset)) {
            return NONE;
        }
        return XdrSteps.checkItem(result, base, available, offset + WORD_BYTES);
    }

    /** @return whether the status word at {@code offset} is present and NFS4_OK */
    static boolean isOk(ByteBuffer result, int base, int available, int offset) {
        return XdrSteps.fits(available, offset, WORD_BYTES) && XdrSteps.readWord(result, base, offset) == Nfs4.NFS4_OK;
    }
}
