package org.rpcrdma4j.binding.nfs.support;

/**
 * Nfs4Replies - encodes COMPOUND4res pieces (RFC 7530, RFC 8881) with an {@link XdrWriter}. The
 * numbers are written out here from the RFCs, independently of the binding's own constants, so a
 * wrong constant there fails a test.
 */
public final class Nfs4Replies {
    public static final int COMPOUND = 1;
    public static final int NFS4_OK = 0;
    public static final int NFS4ERR_IO = 5;
    public static final int NFS4ERR_STALE = 70;

    public static final int OP_ACCESS = 3;
    public static final int OP_CLOSE = 4;
    public static final int OP_GETATTR = 9;
    public static final int OP_GETFH = 10;
    public static final int OP_LOOKUP = 15;
    public static final int OP_LOOKUPP = 16;
    public static final int OP_NVERIFY = 17;
    public static final int OP_OPEN = 18;
    public static final int OP_PUTFH = 22;
    public static final int OP_PUTPUBFH = 23;
    public static final int OP_PUTROOTFH = 24;
    public static final int OP_READ = 25;
    public static final int OP_READDIR = 26;
    public static final int OP_READLINK = 27;
    public static final int OP_RESTOREFH = 31;
    public static final int OP_SAVEFH = 32;
    public static final int OP_VERIFY = 37;
    public static final int OP_SEQUENCE = 53;

    private Nfs4Replies() {
    }

    /** COMPOUND4res head: status, tag, resarray count. */
    public static XdrWriter compound(int status, String tag, int count) {
        return new XdrWriter().word(status).opaque(tag.getBytes()).word(count);
    }

    /** An NFS4_OK result of an operation whose result is its status only (PUTFH, LOOKUP, ...). */
    public static XdrWriter statusOnly(XdrWriter w, int opcode) {
        return w.word(opcode).word(NFS4_OK);
    }

    /** SEQUENCE4res, NFS4_OK: sessionid, sequenceid, slotid, highest_slotid, target_highest_slotid, status_flags. */
    public static XdrWriter sequence(XdrWriter w) {
        return w.word(OP_SEQUENCE).word(NFS4_OK).fixed(16).words(7, 0, 63, 63, 0);
    }

    /** GETATTR4res, NFS4_OK: bitmap4, attrlist4. */
    public static XdrWriter getattr(XdrWriter w, int[] bitmap, byte[] attributes) {
        w.word(OP_GETATTR).word(NFS4_OK).word(bitmap.length).words(bitmap);
        return w.opaque(attributes);
    }

    /** GETFH4res, NFS4_OK: the file handle. */
    public static XdrWriter getfh(XdrWriter w, byte[] handle) {
        return w.word(OP_GETFH).word(NFS4_OK).opaque(handle);
    }

    /** ACCESS4res, NFS4_OK: supported, access. */
    public static XdrWriter access(XdrWriter w) {
        return w.word(OP_ACCESS).word(NFS4_OK).words(0x3f, 0x1f);
    }

    /** OPEN4res, NFS4_OK, up to the delegation: stateid, cinfo, rflags, attrset. */
    public static XdrWriter openHead(XdrWriter w, int[] attrset) {
        w.word(OP_OPEN).word(NFS4_OK).word(1).fixed(12); // stateid4
        w.bool(true).hyper(41).hyper(42); // change_info4
        w.word(4); // rflags: OPEN4_RESULT_LOCKTYPE_POSIX
        return w.word(attrset.length).words(attrset);
    }

    /** nfsace4: type, flag, access_mask, who. */
    public static XdrWriter ace(XdrWriter w, String who) {
        return w.words(0, 0, 0x1f01ff).opaque(who.getBytes());
    }

    /**
     * READ4res, NFS4_OK: eof, data.
     *
     * @return the offset of the data's length word in {@code w}
     */
    public static int read(XdrWriter w, boolean eof, byte[] data) {
        w.word(OP_READ).word(NFS4_OK).bool(eof);
        int item = w.size();
        w.opaque(data);
        return item;
    }

    /**
     * READLINK4res, NFS4_OK: the link text.
     *
     * @return the offset of the text's length word in {@code w}
     */
    public static int readlink(XdrWriter w, String text) {
        w.word(OP_READLINK).word(NFS4_OK);
        int item = w.size();
        w.opaque(text.getBytes());
        return item;
    }

    /** @return {@code length} bytes of a recognizable pattern */
    public static byte[] data(int length) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) ('a' + i % 26);
        }
        return data;
    }
}
