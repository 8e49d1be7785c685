package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.rpcrdma4j.nfs3.localfs.FileSystemErrors;

/**
 * Errors - the NFSv3 failure for a file system failure reported by Java, with the status
 * {@link FileSystemErrors} maps it to.
 */
public final class Errors {

    private Errors() {
    }

    /** The nfsstat3 for a failed file system operation. */
    public static int statusOf(IOException e) {
        return FileSystemErrors.statusOf(e);
    }

    /** The failure for a file system exception, with its nfsstat3. */
    public static NfsException of(IOException e) {
        return new NfsException(statusOf(e), String.valueOf(e.getMessage()));
    }
}
