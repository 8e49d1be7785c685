package org.rpcrdma4j.binding.nfs.internal;

/**
 * Nfs4 - the NFSv4.x numbers the binding needs (RFC 7530 §16, RFC 8881 §16 and §18): procedures,
 * the status NFS4_OK, and the operation codes of the results a COMPOUND walk steps over or looks
 * for. Shared by every minor version: a COMPOUND4res is encoded alike in 4.0, 4.1 and 4.2.
 */
public final class Nfs4 {
    /** NFS version 4 (every minor version). */
    public static final int VERSION = 4;
    /** NFSPROC4_NULL: no result, no item. */
    public static final int NFSPROC4_NULL = 0;
    /** NFSPROC4_COMPOUND: may hold READ or READLINK. */
    public static final int NFSPROC4_COMPOUND = 1;
    /** nfsstat4 NFS4_OK. */
    public static final int NFS4_OK = 0;

    public static final int OP_ACCESS = 3;
    public static final int OP_GETATTR = 9;
    public static final int OP_GETFH = 10;
    public static final int OP_LOOKUP = 15;
    public static final int OP_LOOKUPP = 16;
    public static final int OP_NVERIFY = 17;
    public static final int OP_OPEN = 18;
    public static final int OP_PUTFH = 22;
    public static final int OP_PUTPUBFH = 23;
    public static final int OP_PUTROOTFH = 24;
    /** READ: its data is DDP-eligible (RFC 8267 §6.1). */
    public static final int OP_READ = 25;
    /** READLINK: its link text is DDP-eligible (RFC 8267 §6.1). */
    public static final int OP_READLINK = 27;
    public static final int OP_RESTOREFH = 31;
    public static final int OP_SAVEFH = 32;
    public static final int OP_VERIFY = 37;
    /** SEQUENCE (NFSv4.1 and later), first in every 4.1 COMPOUND. */
    public static final int OP_SEQUENCE = 53;

    private Nfs4() {
    }

    /** @return the operation's name ({@code OP_READ}), or {@code OP_<number>} for one not listed here */
    public static String toString(int opcode) {
        switch (opcode) {
            case OP_ACCESS: return "OP_ACCESS";
            case OP_GETATTR: return "OP_GETATTR";
            case OP_GETFH: return "OP_GETFH";
            case OP_LOOKUP: return "OP_LOOKUP";
            case OP_LOOKUPP: return "OP_LOOKUPP";
            case OP_NVERIFY: return "OP_NVERIFY";
            case OP_OPEN: return "OP_OPEN";
            case OP_PUTFH: return "OP_PUTFH";
            case OP_PUTPUBFH: return "OP_PUTPUBFH";
            case OP_PUTROOTFH: return "OP_PUTROOTFH";
            case OP_READ: return "OP_READ";
            case OP_READLINK: return "OP_READLINK";
            case OP_RESTOREFH: return "OP_RESTOREFH";
            case OP_SAVEFH: return "OP_SAVEFH";
            case OP_VERIFY: return "OP_VERIFY";
            case OP_SEQUENCE: return "OP_SEQUENCE";
            default: return "OP_" + opcode;
        }
    }
}
