package org.rpcrdma4j.nfs3.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * ExportsConfig - the configuration of PID {@value Nfs3ExportsComponent#PID} of the NFS
 * and MOUNT programs ({@code etc/org.rpcrdma4j.nfs3.cfg} in Karaf).
 */
@ObjectClassDefinition(name = "rpcrdma4j NFSv3 exports",
        description = "Local directories served over NFSv3 by the host server. A change applies at once; a bad "
                + "value is refused with one ERROR line naming it, and the previous exports keep serving.")
public @interface ExportsConfig {

    /** Property name of {@link #exports()}. */
    String EXPORTS = "exports";
    /** Property name of {@link #stateDirectory()}. */
    String STATE_DIRECTORY = "stateDirectory";

    @AttributeDefinition(name = "Exports", cardinality = Integer.MAX_VALUE,
            description = "One export per value, exports(5) style: <client path> <local directory> "
                    + "<network>(<options>)...; e.g. '/export /srv/nfs 127.0.0.1/32(rw)'. Options: rw, ro, "
                    + "root_squash, no_root_squash, all_squash, anonuid=N, anongid=N.")
    String[] exports();

    @AttributeDefinition(name = "State directory",
            description = "Absolute directory holding the file handle key (created 0700, key 0600). "
                    + "File handles stay valid across restarts as long as it is kept.")
    String stateDirectory();
}
