package org.rpcrdma4j.nfs3.osgi;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.metatype.annotations.Designate;
import org.rpcrdma4j.nfs3.Nfs3;
import org.rpcrdma4j.nfs3.Nfs3Program;

/**
 * Nfs3ProgramComponent - the NFSv3 program (100003 v3) as an {@code RpcDispatchable} service
 * for the host server's whiteboard, active only when PID {@value #PID} is configured (nothing
 * is exported by default).
 */
@Component(configurationPid = Nfs3ProgramComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = RpcDispatchable.class,
        property = {"rpc.program:Integer=" + Nfs3.PROGRAM, "rpc.version:Integer=" + Nfs3.VERSION})
@Designate(ocd = ExportsConfig.class)
public final class Nfs3ProgramComponent implements RpcDispatchable {

    /** Configuration PID shared with the MOUNT component. */
    public static final String PID = "org.rpcrdma4j.nfs3";

    private final Nfs3Program program;

    /**
     * Opens the configured exports.
     *
     * @throws IllegalArgumentException naming the property when the configuration is invalid
     * @throws IOException if the file handle key cannot be created or read
     */
    @Activate
    public Nfs3ProgramComponent(ExportsConfig config) throws IOException {
        this.program = ExportsOpener.open(config).nfsProgram();
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) {
        program.dispatchOncRpcCall(call);
    }
}
