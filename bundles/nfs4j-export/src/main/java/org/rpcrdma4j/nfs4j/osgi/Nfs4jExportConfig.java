package org.rpcrdma4j.nfs4j.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Nfs4jExportConfig - the configuration of PID {@value Nfs4jExportComponent#PID}
 * ({@code etc/org.rpcrdma4j.nfs4j.cfg} in Karaf).
 */
@ObjectClassDefinition(name = "rpcrdma4j nfs4j exports",
        description = "A local directory served by dCache nfs4j's NFSv4.1 (and optionally NFSv3 and MOUNT) servers "
                + "over every transport of the host server (oncrpc4j TCP and RPC-over-RDMA)")
public @interface Nfs4jExportConfig {

    /** Property name of {@link #root()}. */
    String ROOT = "root";
    /** Property name of {@link #exports()}. */
    String EXPORTS = "exports";
    /** Property name of {@link #stateDirectory()}. */
    String STATE_DIRECTORY = "stateDirectory";
    /** Property name of {@link #versions()}. */
    String VERSIONS = "versions";
    /** Property name of {@link #leaseSeconds()}. */
    String LEASE_SECONDS = "leaseSeconds";

    /** Shortest NFSv4 lease accepted. */
    int LEASE_MIN = 10;
    /** Longest NFSv4 lease accepted. */
    int LEASE_MAX = 3600;

    @AttributeDefinition(name = "Root directory",
            description = "Absolute path of the local directory nfs4j serves; export paths name directories "
                    + "inside it ('/' is the root itself). Required.")
    String root();

    @AttributeDefinition(name = "Exports", cardinality = Integer.MAX_VALUE,
            description = "One export per value, in nfs4j's exports syntax (as exports(5)): <path> <client>(<options>)"
                    + "...; e.g. '/ 127.0.0.1(rw,no_root_squash,insecure)'. The path is inside the root directory and "
                    + "must exist. Clients: an address, a network (10.0.0.0/8) or a host name; options: rw, ro, "
                    + "root_squash, no_root_squash, all_squash, anonuid=N, anongid=N, secure, insecure, sec=sys. "
                    + "A value nfs4j cannot parse is refused and the previous exports keep serving.")
    String[] exports();

    @AttributeDefinition(name = "State directory",
            description = "Absolute directory for the file handle key (0600) and the NFSv4 client records used "
                    + "for reclaim after a restart. Handles stay valid across restarts as long as it is kept. "
                    + "Required.")
    String stateDirectory();

    @AttributeDefinition(name = "NFS versions", cardinality = 2,
            description = "Which nfs4j programs to serve: '4' (NFSv4, program 100003 version 4, minor versions as "
                    + "nfs4j implements them: 4.0, 4.1, 4.2) and '3' (NFSv3 100003 v3 and MOUNT 100005 v3). The "
                    + "host server serves one program per number and version: do not name '3' while the "
                    + "rpcrdma4j NFSv3 bundle serves NFSv3.")
    String[] versions() default {"4"};

    @AttributeDefinition(name = "NFSv4 lease (seconds)", type = AttributeType.INTEGER, min = "10", max = "3600",
            description = "How long an NFSv4 client's state lives without renewal; also the grace period after a "
                    + "restart, counted from the first client call. 10 to 3600, default 90 (knfsd's default).")
    int leaseSeconds() default 90;
}
