/**
 * dCache nfs4j's NFS servers over a local directory: {@link org.rpcrdma4j.nfs4j.Nfs4jServers}
 * builds nfs4j's NFSv4.1 (and, if asked, NFSv3 and MOUNT) programs on a
 * {@link org.rpcrdma4j.nfs4j.DirectoryFileSystem} (java.nio, HMAC-authenticated handles, Linux
 * set-id rules) with {@link org.rpcrdma4j.nfs4j.ClientRecoveryFile} as NFSv4 stable storage,
 * ready to be served by any oncrpc4j transport, RPC-over-RDMA included.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.nfs4j;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
