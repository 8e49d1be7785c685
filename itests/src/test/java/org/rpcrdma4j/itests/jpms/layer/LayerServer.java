package org.rpcrdma4j.itests.jpms.layer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.server.tcp.OncRpcTcpTransport;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;
import org.rpcrdma4j.transport.spi.RegistrationStrategies;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;
import org.rpcrdma4j.transport.spi.UpperLayerBindings;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * A server assembled on the module path without OSGi, as an application would: a
 * {@link HostServer} with oncrpc4j TCP and an {@link RdmaHostedTransport} over the verbs provider
 * {@link ServiceLoader} finds, with the registration strategies and upper-layer bindings the
 * transport's own loaders find, serving an echo program (program {@value #PROGRAM} v1,
 * procedure 1 answers its opaque argument).
 *
 * <p>MUST run inside the module layer built by {@code ModuleLayerServingIT}, as the automatic
 * module {@value #MODULE}: every type here is then the layer's. Its API uses only java.base
 * types, so the test (on the class path) drives it by reflection.
 */
public final class LayerServer implements AutoCloseable {
    /** The automatic module name the test gives the jar of this package. */
    public static final String MODULE = "org.rpcrdma4j.itests.layer";
    public static final int PROGRAM = 0x2000_0782;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final VerbsProvider provider;
    private final List<RegistrationStrategy> strategies;
    private final List<UpperLayerBinding> bindings;
    private final HostServer host;
    private final RdmaHostedTransport rdma;
    private final OncRpcTcpTransport tcp;

    /** Starts the host with both transports on ephemeral ports of 127.0.0.1. */
    public LayerServer() throws IOException {
        provider = ServiceLoader.load(LayerServer.class.getModule().getLayer(), VerbsProvider.class).stream()
                .map(ServiceLoader.Provider::get).filter(p -> "loopback".equals(p.name())).findFirst()
                .orElseThrow(() -> new IllegalStateException("ServiceLoader found no loopback VerbsProvider"));
        strategies = RegistrationStrategies.load();
        bindings = UpperLayerBindings.load();
        host = new HostServer(2);
        host.addProgram(new OncRpcProgram(PROGRAM, 1), new Echo());
        rdma = RdmaHostedTransport.builder(provider)
                .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build();
        strategies.forEach(rdma::addStrategy);
        bindings.forEach(rdma::addBinding);
        tcp = new OncRpcTcpTransport("127.0.0.1", 0);
        try {
            host.addTransport(tcp);
            host.addTransport(rdma);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** @return the port the TCP transport listens on */
    public int tcpPort() {
        return tcp.localAddress().getPort();
    }

    /**
     * Makes one call over RDMA from the Java client, on a connection of its own.
     *
     * @param message the RPC call message
     * @param readChunkOffset XDR position of a DDP item sent as a read chunk, or 0 for none
     * @param readChunkLength the item's length
     * @return the RPC reply's bytes
     */
    public byte[] callOverRdma(byte[] message, int readChunkOffset, int readChunkLength) throws Exception {
        CallRequest.Builder request = CallRequest.builder(ByteBuffer.wrap(message));
        if (readChunkOffset > 0) {
            request.readChunk(readChunkOffset, readChunkLength);
        }
        try (RpcRdmaClient client = RpcRdmaClient.connect(provider, rdma.localAddress(),
                ClientConfig.builder().progressThread(true).build())) {
            ByteBuffer body = client.call(request.build(), CALL_TIMEOUT).body();
            byte[] reply = new byte[body.remaining()];
            body.get(reply);
            return reply;
        }
    }

    /**
     * @return what was assembled: "provider", "strategies" and "bindings" (class names),
     *         "modules" (the module of each part), "activeStrategy", "readsByStrategy"
     */
    public Map<String, String> facts() {
        Map<String, String> facts = new TreeMap<>();
        facts.put("provider", provider.getClass().getName());
        facts.put("strategies", rdma.strategies().toString());
        facts.put("bindings", bindings.stream().map(b -> b.getClass().getName() + "/" + b.program()).toList().toString());
        List<Class<?>> parts = new java.util.ArrayList<>(List.of(provider.getClass(), RdmaHostedTransport.class,
                HostServer.class, RpcRdmaClient.class, LayerServer.class));
        strategies.forEach(s -> parts.add(s.getClass()));
        bindings.forEach(b -> parts.add(b.getClass()));
        facts.put("modules", parts.stream().map(c -> c.getModule().getName()).distinct().sorted().toList().toString());
        facts.put("activeStrategy", String.valueOf(rdma.activeStrategy()));
        facts.put("readsByStrategy", String.valueOf(rdma.statistics().readsByStrategy()));
        return facts;
    }

    /** Stops the host (both transports), then the provider's fabric. */
    @Override
    public void close() {
        try {
            host.close();
        } finally {
            if (provider instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing the verbs provider failed", e);
                }
            }
        }
    }

    /** Procedure 1 answers its opaque argument; every other procedure is unavailable. */
    private static final class Echo implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
            if (call.getProcedure() != 1) {
                call.failProcedureUnavailable();
                return;
            }
            XdrOpaque argument = new XdrOpaque();
            call.retrieveCall(argument);
            call.reply(argument);
        }
    }
}
