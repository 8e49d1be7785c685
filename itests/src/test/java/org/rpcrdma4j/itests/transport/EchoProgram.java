package org.rpcrdma4j.itests.transport;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Hashtable;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * The echo program ({@link EchoWire#PROGRAM} v1) the transport tests register with the host
 * server's whiteboard: NULL answers void, ECHO answers its opaque argument, anything else
 * PROC_UNAVAIL.
 */
final class EchoProgram implements RpcDispatchable {

    private EchoProgram() {
    }

    /** Registers the program as an {@code RpcDispatchable} service; the caller unregisters it. */
    static ServiceRegistration<RpcDispatchable> register(BundleContext context) {
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("rpc.program", EchoWire.PROGRAM);
        properties.put("rpc.version", EchoWire.VERSION);
        return context.registerService(RpcDispatchable.class, new EchoProgram(), properties);
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case EchoWire.PROC_NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case EchoWire.PROC_ECHO -> {
                XdrOpaque argument = new XdrOpaque();
                call.retrieveCall(argument);
                call.reply(argument);
            }
            default -> call.failProcedureUnavailable();
        }
    }
}
