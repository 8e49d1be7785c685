package org.rpcrdma4j.binding.nfs.internal;

import static org.rpcrdma4j.binding.nfs.internal.XdrSteps.NONE;
import static org.rpcrdma4j.binding.nfs.internal.XdrSteps.WORD_BYTES;

import java.nio.ByteBuffer;

/**
 * Nfs4ResultSkips - steps over the results of the NFSv4.x operations that the Linux client and
 * nfs4j put before READ or READLINK in a COMPOUND (RFC 7530 §16, RFC 8881 §18).
 *
 * <p>Every result starts with its status; only an NFS4_OK result is stepped over, since a server
 * stops a COMPOUND at the first failure. Sizes in XDR words, named after their structures.
 */
final class Nfs4ResultSkips {
    /** stateid4: seqid, other[12]. */
    static final int STATEID4_WORDS = 1 + 3;
    /** SEQUENCE4resok: sessionid (16 bytes), sequenceid, slotid, highest_slotid, target_highest_slotid, status_flags. */
    static final int SEQUENCE4RESOK_WORDS = 4 + 5;
    /** ACCESS4resok: supported, access. */
    static final int ACCESS4RESOK_WORDS = 2;
    /** change_info4: atomic, before (hyper), after (hyper). */
    static final int CHANGE_INFO4_WORDS = 1 + 2 + 2;
    /** nfsace4 before its who: type, flag, access_mask. */
    static final int NFSACE4_FIXED_WORDS = 3;
    /** nfs_space_limit4's arms: filesize (hyper) or num_blocks and bytes_per_block. */
    static final int SPACE_LIMIT_ARM_WORDS = 2;

    /** open_delegation_type4 values. */
    static final int OPEN_DELEGATE_NONE = 0;
    static final int OPEN_DELEGATE_READ = 1;
    static final int OPEN_DELEGATE_WRITE = 2;
    static final int OPEN_DELEGATE_NONE_EXT = 3;
    /** why_no_delegation4 values whose arm carries a bool. */
    static final int WND4_CONTENTION = 1;
    static final int WND4_RESOURCE = 2;
    /** limit_by4 values. */
    static final int NFS_LIMIT_SIZE = 1;
    static final int NFS_LIMIT_BLOCKS = 2;

    private Nfs4ResultSkips() {
    }

    /**
     * skipResult() - steps over the result of {@code opcode} at {@code offset} (its status word).
     *
     * @return the offset of the next resop, or NONE for an operation not known here, a status
     *         other than NFS4_OK, or a result beyond the available bytes
     */
    static int skipResult(int opcode, ByteBuffer result, int base, int available, int offset) {
        if (!Nfs4Compounds.isOk(result, base, available, offset)) {
            return NONE;
        }
        int body = offset + WORD_BYTES;
        switch (opcode) {
            case Nfs4.OP_PUTFH:
            case Nfs4.OP_PUTROOTFH:
            case Nfs4.OP_PUTPUBFH:
            case Nfs4.OP_SAVEFH:
            case Nfs4.OP_RESTOREFH:
            case Nfs4.OP_LOOKUP:
            case Nfs4.OP_LOOKUPP:
            case Nfs4.OP_VERIFY:
            case Nfs4.OP_NVERIFY:
                return XdrSteps.skipBytes(available, body, 0);
            case Nfs4.OP_SEQUENCE:
                return XdrSteps.skipBytes(available, body, SEQUENCE4RESOK_WORDS * WORD_BYTES);
            case Nfs4.OP_ACCESS:
                return XdrSteps.skipBytes(available, body, ACCESS4RESOK_WORDS * WORD_BYTES);
            case Nfs4.OP_GETFH:
                return XdrSteps.skipOpaque(result, base, available, body); // nfs_fh4
            case Nfs4.OP_GETATTR:
                return skipFattr4(result, base, available, body);
            case Nfs4.OP_OPEN:
                return skipOpen4resok(result, base, available, body);
            default:
                return NONE;
        }
    }

    /** skipFattr4() - fattr4: bitmap4 attrmask, attrlist4 attr_vals (opaque). */
    static int skipFattr4(ByteBuffer result, int base, int available, int offset) {
        int next = XdrSteps.skipWordArray(result, base, available, offset);
        return XdrSteps.skipOpaque(result, base, available, next);
    }

    /** skipOpen4resok() - OPEN4resok: stateid, cinfo, rflags, attrset (bitmap4), delegation. */
    static int skipOpen4resok(ByteBuffer result, int base, int available, int offset) {
        int next = XdrSteps.skipBytes(available, offset, (STATEID4_WORDS + CHANGE_INFO4_WORDS + 1) * WORD_BYTES);
        next = XdrSteps.skipWordArray(result, base, available, next);
        return skipOpenDelegation4(result, base, available, next);
    }

    /** skipOpenDelegation4() - the open_delegation4 union, by its delegation_type. */
    static int skipOpenDelegation4(ByteBuffer result, int base, int available, int offset) {
        if (!XdrSteps.fits(available, offset, WORD_BYTES)) {
            return NONE;
        }
        int type = XdrSteps.readWord(result, base, offset);
        int arm = offset + WORD_BYTES;
        switch (type) {
            case OPEN_DELEGATE_NONE:
                return arm;
            case OPEN_DELEGATE_READ: // stateid, recall, permissions
                return skipNfsace4(result, base, available,
                        XdrSteps.skipBytes(available, arm, (STATEID4_WORDS + 1) * WORD_BYTES));
            case OPEN_DELEGATE_WRITE: // stateid, recall, space_limit, permissions
                int limit = XdrSteps.skipBytes(available, arm, (STATEID4_WORDS + 1) * WORD_BYTES);
                return skipNfsace4(result, base, available, skipSpaceLimit4(result, base, available, limit));
            case OPEN_DELEGATE_NONE_EXT: // NFSv4.1: open_none_delegation4
                return skipOpenNoneDelegation4(result, base, available, arm);
            default:
                return NONE;
        }
    }

    /** skipOpenNoneDelegation4() - why_no_delegation4, then a bool for CONTENTION and RESOURCE. */
    static int skipOpenNoneDelegation4(ByteBuffer result, int base, int available, int offset) {
        if (!XdrSteps.fits(available, offset, WORD_BYTES)) {
            return NONE;
        }
        int why = XdrSteps.readWord(result, base, offset);
        boolean withBool = why == WND4_CONTENTION || why == WND4_RESOURCE;
        return XdrSteps.skipBytes(available, offset + WORD_BYTES, withBool ? WORD_BYTES : 0);
    }

    /** skipSpaceLimit4() - the nfs_space_limit4 union: limitby, then two words. */
    static int skipSpaceLimit4(ByteBuffer result, int base, int available, int offset) {
        if (!XdrSteps.fits(available, offset, WORD_BYTES)) {
            return NONE;
        }
        int limitBy = XdrSteps.readWord(result, base, offset);
        if (limitBy != NFS_LIMIT_SIZE && limitBy != NFS_LIMIT_BLOCKS) {
            return NONE;
        }
        return XdrSteps.skipBytes(available, offset + WORD_BYTES, SPACE_LIMIT_ARM_WORDS * WORD_BYTES);
    }

    /** skipNfsace4() - nfsace4: type, flag, access_mask, who (utf8str_mixed). */
    static int skipNfsace4(ByteBuffer result, int base, int available, int offset) {
        int who = XdrSteps.skipBytes(available, offset, NFSACE4_FIXED_WORDS * WORD_BYTES);
        return XdrSteps.skipOpaque(result, base, available, who);
    }
}
