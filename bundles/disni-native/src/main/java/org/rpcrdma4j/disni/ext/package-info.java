/**
 * Native calls of rpcrdma4j's libdisni beyond DiSNI 2.1's NativeDispatcher (see
 * {@link org.rpcrdma4j.disni.ext.DisniExtensions}); exported by the fragment, so through its host
 * bundle com.ibm.disni.
 */
@Export
@Version("0.2.0")
package org.rpcrdma4j.disni.ext;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
