package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RdmaTransport;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * BackchannelRoundTrip - one RFC 8167 backward-direction round trip between our Java client and
 * our server transport over a verbs provider: the client calls the server; while that call is
 * open, the server calls the client back on the same connection (inline RDMA_MSG, the client's
 * backward credits); the client's callback program answers; the server answers the first call
 * with the callback's result. What nfs4j's CREATE_SESSION does with CB_NULL, without oncrpc4j, so
 * the lab's DiSNI conformance run needs only our jars.
 *
 * <p>Run over DiSNI on rxe by {@code DisniConformanceTest} (the lab's conformance phase), and over
 * the loopback provider by {@code BackchannelRoundTripLoopbackTest} everywhere.
 */
final class BackchannelRoundTrip {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int PROGRAM = 0x2000_0783;
    private static final int CB_PROGRAM = 0x4000_0783;

    private BackchannelRoundTrip() {
    }

    /**
     * assertRoundTrip() - serve at {@code listen} over {@code provider}, connect our client with a
     * callback program, and check the round trip and its counters on both sides.
     */
    static void assertRoundTrip(VerbsProvider provider, InetSocketAddress listen) throws Exception {
        Server server = new Server();
        RdmaTransport transport = RdmaTransport.open(provider, listen,
                TransportConfig.builder().credits(8).backchannelCredits(2).build(), server);
        Thread loop = new Thread(() -> {
            while (!transport.isClosed()) {
                if (transport.doWork() == 0) {
                    Thread.onSpinWait();
                }
            }
        }, "backchannel-round-trip");
        loop.setDaemon(true);
        loop.start();
        try {
            ClientConfig config = ClientConfig.builder().progressThread(true)
                    .backchannel(call -> intReply(call.getInt(0), 2 * call.getInt(40)), 1).build();
            RpcRdmaClient connected;
            try {
                connected = RpcRdmaClient.connect(provider, transport.localAddress(), config);
            } catch (IOException e) {
                throw new AssertionError("connecting to " + transport.localAddress() + " failed: " + e + "; server "
                        + transport.statistics(), e);
            }
            try (RpcRdmaClient client = connected) {
                for (int i = 1; i <= 3; i++) {
                    RpcReply reply = client.call(CallRequest.builder(call(0x6600 + i, PROGRAM, 21 * i)).build(), TIMEOUT);
                    ByteBuffer body = reply.body();
                    assertEquals(0x6600 + i, body.getInt(body.position()), "the reply to the forward call");
                    assertEquals(42 * i, body.getInt(body.position() + 24), "the callback's result, returned by the server");
                }
                assertEquals(3, client.statistics().backwardCalls(), "backward calls the client answered");
                assertEquals(3, client.statistics().backwardReplies());
                assertEquals(0, client.statistics().backwardCallsDropped());
                assertEquals(3, transport.statistics().get(Counter.BACKWARD_CALLS));
                assertEquals(3, transport.statistics().get(Counter.BACKWARD_REPLIES));
                assertEquals(0, transport.statistics().get(Counter.BACKWARD_REPLIES_UNMATCHED));
                assertEquals(1, transport.connections().get(0).backchannel().credits(), "the client's grant");
            }
        } finally {
            transport.close();
            loop.join(TIMEOUT.toMillis());
            assertTrue(transport.isClosed(), "the transport closed");
        }
        assertEquals(0, server.waiting.size(), "no forward call left waiting for its callback");
    }

    /** The server side: each call triggers a callback; the callback's reply completes the call. */
    private static final class Server implements RpcCallHandler {
        final Map<Integer, PendingReply> waiting = new ConcurrentHashMap<>();

        @Override
        public void onCall(ReceivedCall call) {
            PendingReply reply;
            ByteBuffer body;
            try {
                reply = call.detachReply();
                body = call.copyBody();
            } finally {
                call.release();
            }
            int backwardXid = 0x7000_0000 | reply.xid();
            waiting.put(backwardXid, reply);
            Backchannel.SendOutcome outcome = reply.connection().backchannel().send(call(backwardXid, CB_PROGRAM,
                    body.getInt(40)));
            if (outcome != Backchannel.SendOutcome.QUEUED) {
                waiting.remove(backwardXid);
                reply.send(intReply(reply.xid(), -outcome.ordinal()), -1);
            }
        }

        @Override
        public void onBackchannelReply(RdmaConnection connection, int xid, ByteBuffer rpcReply) {
            PendingReply reply = waiting.remove(xid);
            if (reply != null) {
                reply.send(intReply(reply.xid(), rpcReply.getInt(24)), -1);
            }
        }

        @Override
        public void onBackchannelClosed(RdmaConnection connection) {
            waiting.values().removeIf(r -> r.connection() == connection);
        }
    }

    /** @return an RPC call (version 1, procedure 1) with AUTH_NONE and one int argument (at byte 40) */
    static ByteBuffer call(int xid, int program, int argument) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Integer.BYTES);
        return RpcMessage.putCallHeader(b, xid, program, 1, 1).putInt(argument).flip();
    }

    /** @return an accepted, successful RPC reply carrying one int (at byte 24) */
    static ByteBuffer intReply(int xid, int value) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + Integer.BYTES);
        return RpcMessage.putAcceptedReplyHeader(b, xid, RpcMessage.SUCCESS).putInt(value).flip();
    }
}
