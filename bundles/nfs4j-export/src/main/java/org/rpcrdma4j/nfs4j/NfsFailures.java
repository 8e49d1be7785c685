package org.rpcrdma4j.nfs4j;

import java.io.IOException;
import org.dcache.nfs.ChimeraNFSException;
import org.dcache.nfs.nfsstat;
import org.dcache.nfs.status.AccessException;
import org.dcache.nfs.status.DQuotException;
import org.dcache.nfs.status.ExistException;
import org.dcache.nfs.status.FBigException;
import org.dcache.nfs.status.InvalException;
import org.dcache.nfs.status.IsDirException;
import org.dcache.nfs.status.MLinkException;
import org.dcache.nfs.status.NameTooLongException;
import org.dcache.nfs.status.NfsIoException;
import org.dcache.nfs.status.NoEntException;
import org.dcache.nfs.status.NoSpcException;
import org.dcache.nfs.status.NotDirException;
import org.dcache.nfs.status.NotEmptyException;
import org.dcache.nfs.status.NotSuppException;
import org.dcache.nfs.status.PermException;
import org.dcache.nfs.status.RoFsException;
import org.dcache.nfs.status.XDevException;
import org.rpcrdma4j.nfs3.localfs.FileSystemErrors;

/**
 * NfsFailures - a java.nio failure as nfs4j's own status exception for its NFS status
 * ({@link FileSystemErrors}: ENOENT is NFS4ERR_NOENT / NFS3ERR_NOENT, an unknown errno NFS4ERR_IO).
 * nfs4j's servers answer these with their status instead of logging a stack trace and answering
 * NFS4ERR_SERVERFAULT, and some of them decide by the class (an exclusive OPEN catches
 * {@link ExistException}), so the class must be nfs4j's, not only the status.
 */
final class NfsFailures {

    private NfsFailures() {
    }

    static ChimeraNFSException of(IOException e) {
        if (e instanceof ChimeraNFSException nfs) {
            return nfs;
        }
        String message = String.valueOf(e.getMessage());
        switch (FileSystemErrors.statusOf(e)) {
            case nfsstat.NFSERR_PERM: return new PermException(message, e);
            case nfsstat.NFSERR_NOENT: return new NoEntException(message, e);
            case nfsstat.NFSERR_ACCESS: return new AccessException(message, e);
            case nfsstat.NFSERR_EXIST: return new ExistException(message, e);
            case nfsstat.NFSERR_XDEV: return new XDevException(message, e);
            case nfsstat.NFSERR_NOTDIR: return new NotDirException(message, e);
            case nfsstat.NFSERR_ISDIR: return new IsDirException(message, e);
            case nfsstat.NFSERR_INVAL: return new InvalException(message, e);
            case nfsstat.NFSERR_FBIG: return new FBigException(message, e);
            case nfsstat.NFSERR_NOSPC: return new NoSpcException(message, e);
            case nfsstat.NFSERR_ROFS: return new RoFsException(message, e);
            case nfsstat.NFSERR_MLINK: return new MLinkException(message, e);
            case nfsstat.NFSERR_NAMETOOLONG: return new NameTooLongException(message, e);
            case nfsstat.NFSERR_NOTEMPTY: return new NotEmptyException(message, e);
            case nfsstat.NFSERR_DQUOT: return new DQuotException(message, e);
            case nfsstat.NFSERR_NOTSUPP: return new NotSuppException(message, e);
            default: return new NfsIoException(message, e);
        }
    }
}
