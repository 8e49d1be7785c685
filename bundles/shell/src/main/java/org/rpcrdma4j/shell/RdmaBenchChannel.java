package org.rpcrdma4j.shell;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * RdmaBenchChannel - NULL calls over one RPC-over-RDMA connection of the Java client, with the
 * client's own progress thread completing the replies. A call with an argument too large to go
 * inline sends the argument as a read chunk (a DDP item at its XDR position, as NFS WRITE data
 * travels), which the server pulls with RDMA READ through its active registration strategy.
 *
 * <p>Ownership: the channel owns the client and closes it in {@link #close()}; the provider
 * stays the caller's (the OSGi service).
 */
final class RdmaBenchChannel implements BenchChannel {
    private final RpcRdmaClient client;
    private final int program;
    private final int version;
    private final int argumentBytes;
    /** Xids are {@code xidBase + index}: unique within a run, different between runs. */
    private final int xidBase = ThreadLocalRandom.current().nextInt();

    private RdmaBenchChannel(RpcRdmaClient client, int program, int version, int argumentBytes) {
        this.client = client;
        this.program = program;
        this.version = version;
        this.argumentBytes = argumentBytes;
    }

    /**
     * connect() - connects to the server and waits until the connection is established.
     *
     * @param provider the verbs provider the server's transport uses
     * @param server where the server listens (a connectable address, not the wildcard)
     * @param plan the run: its concurrency becomes the client's credit request, its call timeout
     *        bounds the connect
     * @return the connected channel, owned by the caller
     * @throws IOException when the server rejects or does not answer (nothing is left open)
     * @throws InterruptedException when interrupted while connecting
     */
    static RdmaBenchChannel connect(VerbsProvider provider, InetSocketAddress server, BenchPlan plan)
            throws IOException, InterruptedException {
        ClientConfig config = ClientConfig.builder()
                .maxCredits(Math.min(plan.concurrency(), ClientConfig.MAX_CREDITS))
                .progressThread(true)
                .connectTimeout(plan.callTimeout())
                .build();
        return new RdmaBenchChannel(RpcRdmaClient.connect(provider, server, config), plan.program(), plan.version(),
                plan.argumentBytes());
    }

    @Override
    public void call(int index, Duration timeout) throws IOException, InterruptedException {
        int xid = xidBase + index;
        ByteBuffer message = NullCall.encode(xid, program, version, argumentBytes);
        CallRequest.Builder request = CallRequest.builder(message);
        if (argumentBytes > 0 && message.remaining() > client.sendLimit()) {
            request.readChunk(NullCall.ARGUMENT_OFFSET, argumentBytes);
        }
        RpcReply reply = client.call(request.build(), timeout);
        NullCall.checkReply(reply.body(), xid);
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (RuntimeException e) {
            // the client released what it could; a benchmark has nothing more to do about it
        }
    }
}
