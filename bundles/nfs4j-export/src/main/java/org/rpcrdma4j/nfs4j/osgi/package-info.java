/**
 * The Declarative Services component that serves the configured directory (PID
 * {@code org.rpcrdma4j.nfs4j}) and its metatype. Private to the bundle.
 */
package org.rpcrdma4j.nfs4j.osgi;
