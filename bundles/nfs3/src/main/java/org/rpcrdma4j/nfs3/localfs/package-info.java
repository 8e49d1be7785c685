/**
 * What every NFS server of this project that serves a local directory needs, whatever NFS
 * implementation decodes its calls (this bundle's NFSv3 programs, or dCache nfs4j's servers
 * over the nfs4j export bundle): the key that authenticates file handles
 * ({@link org.rpcrdma4j.nfs3.localfs.ServerKey}) and the memory of handles it verified
 * ({@link org.rpcrdma4j.nfs3.localfs.VerifiedHandles}), the byte-exact mapping between names on the
 * wire and {@link java.nio.file.Path}s ({@link org.rpcrdma4j.nfs3.localfs.PathBytes}), and the
 * Linux set-user-ID and set-group-ID rules a server running as root must apply for its callers
 * ({@link org.rpcrdma4j.nfs3.localfs.SetIdBits}), and the cache of files kept open between READ,
 * WRITE and COMMIT calls, with group commit of stable writes
 * ({@link org.rpcrdma4j.nfs3.localfs.OpenFiles}).
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.nfs3.localfs;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
