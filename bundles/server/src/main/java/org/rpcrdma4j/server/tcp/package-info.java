/**
 * oncrpc4j's ONC RPC over TCP service as a transport of the host server.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.server.tcp;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
