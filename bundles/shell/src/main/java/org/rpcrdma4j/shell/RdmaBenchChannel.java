package org.rpcrdma4j.shell;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * RdmaBenchChannel - NULL calls over one RPC-over-RDMA connection of the Java client, with the
 * client's own progress thread completing the replies.
 *
 * <p>Ownership: the channel owns the client and closes it in {@link #close()}; the provider
 * stays the caller's (the OSGi service).
 */
final class RdmaBenchChannel implements BenchChannel {
    private final RpcRdmaClient client;
    private final int program;
    private final int version;
    /** Xids are {@code xidBase + index}: unique within a run, different between runs. */
    private final int xidBase = ThreadLocalRandom.current().nextInt();

    private RdmaBenchChannel(RpcRdmaClient client, int program, int version) {
        this.client = client;
        this.program = program;
        this.version = version;
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
        return new RdmaBenchChannel(RpcRdmaClient.connect(provider, server, config), plan.program(), plan.version());
    }

    @Override
    public void call(int index, Duration timeout) throws IOException, InterruptedException {
        int xid = xidBase + index;
        RpcReply reply = client.call(CallRequest.builder(NullCall.encode(xid, program, version)).build(), timeout);
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
