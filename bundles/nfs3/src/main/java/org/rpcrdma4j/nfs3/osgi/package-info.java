/**
 * Declarative Services components publishing the NFSv3 and MOUNT v3 programs as
 * {@code RpcDispatchable} services with the host server's whiteboard properties
 * ({@code rpc.program}, {@code rpc.version}). Private to the bundle; the logic lives in
 * plain classes that run outside OSGi too.
 */
package org.rpcrdma4j.nfs3.osgi;
