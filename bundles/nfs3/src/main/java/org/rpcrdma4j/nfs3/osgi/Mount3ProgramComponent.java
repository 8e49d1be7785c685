package org.rpcrdma4j.nfs3.osgi;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.rpcrdma4j.nfs3.Mount3;
import org.rpcrdma4j.nfs3.Mount3Program;

/**
 * Mount3ProgramComponent - the MOUNT v3 program (100005 v3) as an {@code RpcDispatchable}
 * service for the host server's whiteboard, configured by the same PID as
 * {@link Nfs3ProgramComponent}.
 */
@Component(configurationPid = Nfs3ProgramComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = RpcDispatchable.class,
        property = {"rpc.program:Integer=" + Mount3.PROGRAM, "rpc.version:Integer=" + Mount3.VERSION})
public final class Mount3ProgramComponent implements RpcDispatchable {

    private final Mount3Program program;

    /**
     * Opens the configured exports.
     *
     * @throws IllegalArgumentException naming the property when the configuration is invalid
     * @throws IOException if the file handle key cannot be created or read
     */
    @Activate
    public Mount3ProgramComponent(ExportsConfig config) throws IOException {
        this.program = ExportsOpener.open(config).mountProgram();
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) {
        program.dispatchOncRpcCall(call);
    }
}
