package org.rpcrdma4j.nfs3;

/**
 * Nfs3 - constants of NFS version 3 (RFC 1813): program, procedures, status codes and the
 * small enumerations of the protocol.
 *
 * <p>One place for the wire numbers of the protocol (the oncrpc4j/nfs4j idiom);
 * {@link #procedureName(int)} and {@link #statusName(int)} render them for logs and test
 * messages.
 */
public final class Nfs3 {

    /** The NFS program number (RFC 1813 §1.2). */
    public static final int PROGRAM = 100003;
    /** The protocol version served here. */
    public static final int VERSION = 3;

    // Procedures (RFC 1813 §3.3).
    public static final int NFSPROC3_NULL = 0;
    public static final int NFSPROC3_GETATTR = 1;
    public static final int NFSPROC3_SETATTR = 2;
    public static final int NFSPROC3_LOOKUP = 3;
    public static final int NFSPROC3_ACCESS = 4;
    public static final int NFSPROC3_READLINK = 5;
    public static final int NFSPROC3_READ = 6;
    public static final int NFSPROC3_WRITE = 7;
    public static final int NFSPROC3_CREATE = 8;
    public static final int NFSPROC3_MKDIR = 9;
    public static final int NFSPROC3_SYMLINK = 10;
    public static final int NFSPROC3_MKNOD = 11;
    public static final int NFSPROC3_REMOVE = 12;
    public static final int NFSPROC3_RMDIR = 13;
    public static final int NFSPROC3_RENAME = 14;
    public static final int NFSPROC3_LINK = 15;
    public static final int NFSPROC3_READDIR = 16;
    public static final int NFSPROC3_READDIRPLUS = 17;
    public static final int NFSPROC3_FSSTAT = 18;
    public static final int NFSPROC3_FSINFO = 19;
    public static final int NFSPROC3_PATHCONF = 20;
    public static final int NFSPROC3_COMMIT = 21;

    // nfsstat3 (RFC 1813 §2.6).
    public static final int NFS3_OK = 0;
    public static final int NFS3ERR_PERM = 1;
    public static final int NFS3ERR_NOENT = 2;
    public static final int NFS3ERR_IO = 5;
    public static final int NFS3ERR_NXIO = 6;
    public static final int NFS3ERR_ACCES = 13;
    public static final int NFS3ERR_EXIST = 17;
    public static final int NFS3ERR_XDEV = 18;
    public static final int NFS3ERR_NODEV = 19;
    public static final int NFS3ERR_NOTDIR = 20;
    public static final int NFS3ERR_ISDIR = 21;
    public static final int NFS3ERR_INVAL = 22;
    public static final int NFS3ERR_FBIG = 27;
    public static final int NFS3ERR_NOSPC = 28;
    public static final int NFS3ERR_ROFS = 30;
    public static final int NFS3ERR_MLINK = 31;
    public static final int NFS3ERR_NAMETOOLONG = 63;
    public static final int NFS3ERR_NOTEMPTY = 66;
    public static final int NFS3ERR_DQUOT = 69;
    public static final int NFS3ERR_STALE = 70;
    public static final int NFS3ERR_REMOTE = 71;
    public static final int NFS3ERR_BADHANDLE = 10001;
    public static final int NFS3ERR_NOT_SYNC = 10002;
    public static final int NFS3ERR_BAD_COOKIE = 10003;
    public static final int NFS3ERR_NOTSUPP = 10004;
    public static final int NFS3ERR_TOOSMALL = 10005;
    public static final int NFS3ERR_SERVERFAULT = 10006;
    public static final int NFS3ERR_BADTYPE = 10007;
    public static final int NFS3ERR_JUKEBOX = 10008;

    // ftype3 (RFC 1813 §2.6).
    public static final int NF3REG = 1;
    public static final int NF3DIR = 2;
    public static final int NF3BLK = 3;
    public static final int NF3CHR = 4;
    public static final int NF3LNK = 5;
    public static final int NF3SOCK = 6;
    public static final int NF3FIFO = 7;

    // ACCESS bits (RFC 1813 §3.3.4).
    public static final int ACCESS3_READ = 0x0001;
    public static final int ACCESS3_LOOKUP = 0x0002;
    public static final int ACCESS3_MODIFY = 0x0004;
    public static final int ACCESS3_EXTEND = 0x0008;
    public static final int ACCESS3_DELETE = 0x0010;
    public static final int ACCESS3_EXECUTE = 0x0020;

    // stable_how (RFC 1813 §3.3.7).
    public static final int UNSTABLE = 0;
    public static final int DATA_SYNC = 1;
    public static final int FILE_SYNC = 2;

    // createmode3 (RFC 1813 §3.3.8).
    public static final int UNCHECKED = 0;
    public static final int GUARDED = 1;
    public static final int EXCLUSIVE = 2;

    // time_how (RFC 1813 §2.6, sattr3).
    public static final int DONT_CHANGE = 0;
    public static final int SET_TO_SERVER_TIME = 1;
    public static final int SET_TO_CLIENT_TIME = 2;

    // FSINFO properties (RFC 1813 §3.3.19).
    public static final int FSF3_LINK = 0x0001;
    public static final int FSF3_SYMLINK = 0x0002;
    public static final int FSF3_HOMOGENEOUS = 0x0008;
    public static final int FSF3_CANSETTIME = 0x0010;

    /** Largest file handle (NFS3_FHSIZE). */
    public static final int NFS3_FHSIZE = 64;
    /** Size of the cookie, create and write verifiers (NFS3_COOKIEVERFSIZE and friends). */
    public static final int NFS3_VERFSIZE = 8;

    private static final String[] PROCEDURES = {
        "NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE", "CREATE",
        "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR", "READDIRPLUS",
        "FSSTAT", "FSINFO", "PATHCONF", "COMMIT",
    };

    private Nfs3() {
    }

    /** Number of NFSv3 procedures (NULL through COMMIT). */
    public static int procedureCount() {
        return PROCEDURES.length;
    }

    /** The RFC name of an NFSv3 procedure, or {@code "PROC_<n>"} for an unknown number. */
    public static String procedureName(int procedure) {
        return procedure >= 0 && procedure < PROCEDURES.length ? PROCEDURES[procedure] : "PROC_" + procedure;
    }

    /** The RFC name of an nfsstat3 code, or {@code "NFS3ERR_<n>"} for an unknown one. */
    public static String statusName(int status) {
        switch (status) {
            case NFS3_OK: return "NFS3_OK";
            case NFS3ERR_PERM: return "NFS3ERR_PERM";
            case NFS3ERR_NOENT: return "NFS3ERR_NOENT";
            case NFS3ERR_IO: return "NFS3ERR_IO";
            case NFS3ERR_NXIO: return "NFS3ERR_NXIO";
            case NFS3ERR_ACCES: return "NFS3ERR_ACCES";
            case NFS3ERR_EXIST: return "NFS3ERR_EXIST";
            case NFS3ERR_XDEV: return "NFS3ERR_XDEV";
            case NFS3ERR_NODEV: return "NFS3ERR_NODEV";
            case NFS3ERR_NOTDIR: return "NFS3ERR_NOTDIR";
            case NFS3ERR_ISDIR: return "NFS3ERR_ISDIR";
            case NFS3ERR_INVAL: return "NFS3ERR_INVAL";
            case NFS3ERR_FBIG: return "NFS3ERR_FBIG";
            case NFS3ERR_NOSPC: return "NFS3ERR_NOSPC";
            case NFS3ERR_ROFS: return "NFS3ERR_ROFS";
            case NFS3ERR_MLINK: return "NFS3ERR_MLINK";
            case NFS3ERR_NAMETOOLONG: return "NFS3ERR_NAMETOOLONG";
            case NFS3ERR_NOTEMPTY: return "NFS3ERR_NOTEMPTY";
            case NFS3ERR_DQUOT: return "NFS3ERR_DQUOT";
            case NFS3ERR_STALE: return "NFS3ERR_STALE";
            case NFS3ERR_REMOTE: return "NFS3ERR_REMOTE";
            case NFS3ERR_BADHANDLE: return "NFS3ERR_BADHANDLE";
            case NFS3ERR_NOT_SYNC: return "NFS3ERR_NOT_SYNC";
            case NFS3ERR_BAD_COOKIE: return "NFS3ERR_BAD_COOKIE";
            case NFS3ERR_NOTSUPP: return "NFS3ERR_NOTSUPP";
            case NFS3ERR_TOOSMALL: return "NFS3ERR_TOOSMALL";
            case NFS3ERR_SERVERFAULT: return "NFS3ERR_SERVERFAULT";
            case NFS3ERR_BADTYPE: return "NFS3ERR_BADTYPE";
            case NFS3ERR_JUKEBOX: return "NFS3ERR_JUKEBOX";
            default: return "NFS3ERR_" + status;
        }
    }
}
