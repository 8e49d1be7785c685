package org.rpcrdma4j.nfs3.localfs;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.util.Locale;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * FileSystemErrors - maps a file system failure reported by Java to the NFS status a client
 * expects. The values are nfsstat3's (RFC 1813 §2.6); NFSv4 kept every one of them (nfsstat4,
 * RFC 7530 §13.1: NFS4ERR_NOENT is 2, NFS4ERR_NOTSUPP 10004...), so they serve both versions.
 *
 * <p>Java names a few errno values by exception type; the rest only survive as the strerror
 * text in {@link FileSystemException#getReason()}, which is matched here. Anything unknown is
 * NFS3ERR_IO: never a stack trace, never a success.
 */
public final class FileSystemErrors {

    private record Reason(String text, int status) {
    }

    /** strerror texts (lower case) and their nfsstat3, first match wins. */
    private static final Reason[] REASONS = {
        new Reason("not a directory", Nfs3.NFS3ERR_NOTDIR),
        new Reason("is a directory", Nfs3.NFS3ERR_ISDIR),
        new Reason("no space left", Nfs3.NFS3ERR_NOSPC),
        new Reason("read-only file system", Nfs3.NFS3ERR_ROFS),
        new Reason("file name too long", Nfs3.NFS3ERR_NAMETOOLONG),
        new Reason("cross-device link", Nfs3.NFS3ERR_XDEV),
        new Reason("disk quota exceeded", Nfs3.NFS3ERR_DQUOT),
        new Reason("too many links", Nfs3.NFS3ERR_MLINK),
        new Reason("invalid argument", Nfs3.NFS3ERR_INVAL),
        new Reason("operation not permitted", Nfs3.NFS3ERR_PERM),
        new Reason("permission denied", Nfs3.NFS3ERR_ACCES),
        new Reason("file too large", Nfs3.NFS3ERR_FBIG),
        new Reason("directory not empty", Nfs3.NFS3ERR_NOTEMPTY),
        new Reason("file exists", Nfs3.NFS3ERR_EXIST),
        new Reason("no such file", Nfs3.NFS3ERR_NOENT),
        new Reason("operation not supported", Nfs3.NFS3ERR_NOTSUPP),
    };

    private FileSystemErrors() {
    }

    /** The NFS status (nfsstat3, equal in nfsstat4) for a failed file system operation. */
    public static int statusOf(IOException e) {
        if (e instanceof NoSuchFileException) {
            return Nfs3.NFS3ERR_NOENT;
        }
        if (e instanceof FileAlreadyExistsException) {
            return Nfs3.NFS3ERR_EXIST;
        }
        if (e instanceof DirectoryNotEmptyException) {
            return Nfs3.NFS3ERR_NOTEMPTY;
        }
        if (e instanceof AccessDeniedException) {
            return Nfs3.NFS3ERR_ACCES;
        }
        if (e instanceof NotDirectoryException) {
            return Nfs3.NFS3ERR_NOTDIR;
        }
        if (e instanceof NotLinkException) {
            return Nfs3.NFS3ERR_INVAL;
        }
        if (e instanceof FileSystemLoopException) {
            return Nfs3.NFS3ERR_INVAL;
        }
        if (e instanceof FileSystemException) {
            String reason = ((FileSystemException) e).getReason();
            if (reason != null) {
                String lower = reason.toLowerCase(Locale.ROOT);
                for (Reason known : REASONS) {
                    if (lower.contains(known.text())) {
                        return known.status();
                    }
                }
            }
        }
        return Nfs3.NFS3ERR_IO;
    }
}
