package org.rpcrdma4j.shell;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/**
 * TcpBenchChannel - NULL calls over one oncrpc4j TCP connection, for comparison with RDMA.
 * oncrpc4j's client matches replies by xid, so the workers share the connection as RDMA's share
 * theirs; a reply that is not an accepted SUCCESS fails the call with oncrpc4j's exception.
 *
 * <p>Ownership: the channel owns the oncrpc4j client and closes it in {@link #close()}.
 */
final class TcpBenchChannel implements BenchChannel {
    private final OncRpcClient client;
    private final RpcTransport transport;
    private final int program;
    private final int version;
    /** The call's arguments: void, or the same opaque argument the RDMA calls carry. */
    private final XdrAble arguments;

    private TcpBenchChannel(OncRpcClient client, RpcTransport transport, int program, int version, int argumentBytes) {
        this.client = client;
        this.transport = transport;
        this.program = program;
        this.version = version;
        this.arguments = argumentBytes == 0 ? XdrVoid.XDR_VOID : new XdrOpaque(NullCall.argument(argumentBytes));
    }

    /**
     * connect() - connects to oncrpc4j's TCP service.
     *
     * @param server where it listens (a connectable address)
     * @param plan the run; its call timeout bounds the connect
     * @return the connected channel, owned by the caller
     * @throws IOException when the connection fails (nothing is left open)
     */
    static TcpBenchChannel connect(InetSocketAddress server, BenchPlan plan) throws IOException {
        OncRpcClient client = new OncRpcClient(server, IpProtocolType.TCP);
        try {
            RpcTransport transport = client.connect(plan.callTimeout().toMillis(), TimeUnit.MILLISECONDS);
            return new TcpBenchChannel(client, transport, plan.program(), plan.version(), plan.argumentBytes());
        } catch (IOException | RuntimeException e) {
            closeQuietly(client);
            throw e;
        }
    }

    @Override
    public void call(int index, Duration timeout) throws Exception {
        new RpcCall(program, version, new RpcAuthTypeNone(), transport)
                .call(NullCall.NULL_PROCEDURE, arguments, new XdrVoid(), timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        closeQuietly(client);
    }

    private static void closeQuietly(OncRpcClient client) {
        try {
            client.close();
        } catch (IOException | RuntimeException e) {
            // nothing more to release
        }
    }
}
