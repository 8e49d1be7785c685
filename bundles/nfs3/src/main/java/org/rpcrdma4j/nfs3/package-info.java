/**
 * An NFSv3 (RFC 1813) and MOUNT v3 export service as oncrpc4j programs.
 *
 * <p>{@link org.rpcrdma4j.nfs3.NfsExportService} opens a set of
 * {@link org.rpcrdma4j.nfs3.Export}s and hands out the two
 * {@link org.dcache.oncrpc4j.rpc.RpcDispatchable} programs, {@link org.rpcrdma4j.nfs3.Nfs3Program}
 * (100003 v3) and {@link org.rpcrdma4j.nfs3.Mount3Program} (100005 v3), to be served by any
 * oncrpc4j transport. {@link org.rpcrdma4j.nfs3.Nfs3} and {@link org.rpcrdma4j.nfs3.Mount3} hold
 * the protocols' numbers. Where the DDP-eligible items of its replies lie (RFC 8267) is the
 * business of the NFS upper-layer binding bundle, {@code org.rpcrdma4j.binding.nfs}.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.nfs3;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
