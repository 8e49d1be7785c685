/**
 * The verbs adapter contract: what the rest of rpcrdma4j programs against instead of a
 * provider's own classes (DiSNI, the in-JVM loopback fabric).
 */
@Export
@Version("0.5.0")
package org.rpcrdma4j.verbs;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
