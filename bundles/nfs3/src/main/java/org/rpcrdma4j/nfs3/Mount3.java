package org.rpcrdma4j.nfs3;

/**
 * Mount3 - constants of the MOUNT protocol version 3 (RFC 1813 Appendix I).
 */
public final class Mount3 {

    /** The MOUNT program number. */
    public static final int PROGRAM = 100005;
    /** The protocol version served here (the one that hands out NFSv3 handles). */
    public static final int VERSION = 3;

    // Procedures.
    public static final int MOUNTPROC3_NULL = 0;
    public static final int MOUNTPROC3_MNT = 1;
    public static final int MOUNTPROC3_DUMP = 2;
    public static final int MOUNTPROC3_UMNT = 3;
    public static final int MOUNTPROC3_UMNTALL = 4;
    public static final int MOUNTPROC3_EXPORT = 5;

    // mountstat3.
    public static final int MNT3_OK = 0;
    public static final int MNT3ERR_PERM = 1;
    public static final int MNT3ERR_NOENT = 2;
    public static final int MNT3ERR_IO = 5;
    public static final int MNT3ERR_ACCES = 13;
    public static final int MNT3ERR_NOTDIR = 20;
    public static final int MNT3ERR_INVAL = 22;
    public static final int MNT3ERR_NAMETOOLONG = 63;
    public static final int MNT3ERR_NOTSUPP = 10004;
    public static final int MNT3ERR_SERVERFAULT = 10006;

    /** Longest path a client may send (MNTPATHLEN). */
    public static final int MNTPATHLEN = 1024;
    /** Longest host name in a mount list (MNTNAMLEN). */
    public static final int MNTNAMLEN = 255;

    /** AUTH_SYS (AUTH_UNIX), the flavor MNT advertises. */
    public static final int AUTH_SYS = 1;

    private static final String[] PROCEDURES = {"NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT"};

    private Mount3() {
    }

    /** The RFC name of a MOUNT v3 procedure, or {@code "PROC_<n>"} for an unknown number. */
    public static String procedureName(int procedure) {
        return procedure >= 0 && procedure < PROCEDURES.length ? PROCEDURES[procedure] : "PROC_" + procedure;
    }

    /** The RFC name of a mountstat3 code, or {@code "MNT3ERR_<n>"} for an unknown one. */
    public static String statusName(int status) {
        switch (status) {
            case MNT3_OK: return "MNT3_OK";
            case MNT3ERR_PERM: return "MNT3ERR_PERM";
            case MNT3ERR_NOENT: return "MNT3ERR_NOENT";
            case MNT3ERR_IO: return "MNT3ERR_IO";
            case MNT3ERR_ACCES: return "MNT3ERR_ACCES";
            case MNT3ERR_NOTDIR: return "MNT3ERR_NOTDIR";
            case MNT3ERR_INVAL: return "MNT3ERR_INVAL";
            case MNT3ERR_NAMETOOLONG: return "MNT3ERR_NAMETOOLONG";
            case MNT3ERR_NOTSUPP: return "MNT3ERR_NOTSUPP";
            case MNT3ERR_SERVERFAULT: return "MNT3ERR_SERVERFAULT";
            default: return "MNT3ERR_" + status;
        }
    }
}
