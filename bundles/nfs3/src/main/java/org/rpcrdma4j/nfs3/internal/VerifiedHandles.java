package org.rpcrdma4j.nfs3.internal;

import org.rpcrdma4j.nfs3.localfs.ServerKey;

/**
 * The NFSv3 program's handle check: {@link org.rpcrdma4j.nfs3.localfs.VerifiedHandles} over
 * {@link FileHandle}s of one key (a new key, a new cache).
 */
public final class VerifiedHandles {

    /** Entries in the table. */
    public static final int SLOTS = org.rpcrdma4j.nfs3.localfs.VerifiedHandles.SLOTS;

    private final org.rpcrdma4j.nfs3.localfs.VerifiedHandles<FileHandle, NfsException> cache;

    /** An empty cache of handles verified under {@code key}. */
    public VerifiedHandles(ServerKey key) {
        this.cache = new org.rpcrdma4j.nfs3.localfs.VerifiedHandles<>(FileHandle.BYTES, FileHandle.MAC_OFFSET,
                bytes -> FileHandle.decode(bytes, key));
    }

    /**
     * verify() - authenticates and decodes a handle received from a client.
     *
     * @throws NfsException NFS3ERR_BADHANDLE if the length, version or MAC is wrong
     */
    public FileHandle verify(byte[] bytes) throws NfsException {
        return cache.verify(bytes);
    }

    /** The number of handles remembered now (tests and diagnostics only). */
    public int size() {
        return cache.size();
    }
}
