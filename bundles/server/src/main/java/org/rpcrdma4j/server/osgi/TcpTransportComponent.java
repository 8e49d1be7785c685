package org.rpcrdma4j.server.osgi;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.server.RpcCallDispatcher;
import org.rpcrdma4j.server.tcp.OncRpcTcpTransport;

/**
 * oncrpc4j's TCP service as a {@link HostedTransport} service, configured through Config
 * Admin; the host server picks it up and serves every program over it.
 */
@Component(configurationPid = TcpTransportComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = HostedTransport.class)
@Designate(ocd = TcpTransportComponent.Config.class)
public final class TcpTransportComponent implements HostedTransport {

    /** Configuration PID: {@code etc/org.rpcrdma4j.server.tcp.cfg} in Karaf. */
    public static final String PID = "org.rpcrdma4j.server.tcp";

    @ObjectClassDefinition(name = "rpcrdma4j ONC RPC over TCP",
            description = "oncrpc4j's TCP service, serving every program of the host server")
    public @interface Config {
        @AttributeDefinition(name = "Port", min = "0", max = "65535",
                description = "TCP port to listen on; 2049 is the NFS convention; 0 picks a free port.")
        int port() default OncRpcTcpTransport.DEFAULT_PORT;

        @AttributeDefinition(name = "Bind address",
                description = "Local IP address to listen on: 0.0.0.0 for every IPv4 address, :: for every address.")
        String bindAddress() default "0.0.0.0";
    }

    private final OncRpcTcpTransport transport;

    @Activate
    public TcpTransportComponent(Config config) {
        this.transport = new OncRpcTcpTransport(config.bindAddress(), config.port());
    }

    @Override
    public String name() {
        return transport.name();
    }

    @Override
    public void start(RpcCallDispatcher dispatcher) throws IOException {
        transport.start(dispatcher);
    }

    @Override
    public void stop() {
        transport.stop();
    }

    @Override
    public InetSocketAddress localAddress() {
        return transport.localAddress();
    }
}
