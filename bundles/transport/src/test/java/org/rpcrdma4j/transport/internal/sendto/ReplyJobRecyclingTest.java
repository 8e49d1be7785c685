package org.rpcrdma4j.transport.internal.sendto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.conformance.CallBuilder;
import org.rpcrdma4j.transport.conformance.RecordingHandler;
import org.rpcrdma4j.transport.conformance.TransportHarness;
import org.rpcrdma4j.transport.internal.common.BoundedPool;
import org.rpcrdma4j.transport.internal.connection.ConnectionState;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * The pooled per-call reply contexts of a connection go back to its pool on every path: posted,
 * abandoned, and dropped because the connection closed before the reply was sent.
 */
class ReplyJobRecyclingTest {
    private static final int[] ACCEPTED_SUCCESS = {1, 0, 0, 0, 0};

    @Test
    void everyContextComesBackWhetherItsReplyIsPostedAbandonedOrDroppedAtClose() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        try (TransportHarness harness = new TransportHarness(LoopbackFabric.deterministic(),
                TransportConfig.builder().credits(4).backchannelCredits(0).build(), handler)) {
            RawPeer client = harness.connect();
            ConnectionState connection = (ConnectionState) harness.transport().connections().get(0);
            BoundedPool<ReplyJob> pool = connection.replyJobs();
            for (int i = 0; i < 3; i++) {
                CallBuilder.msg(0x700 + i).inline(CallBuilder.bytes(16, i)).send(client, 0);
            }
            harness.settle();
            List<ReceivedCall> calls = handler.takeAll();
            assertEquals(3, calls.size());
            PendingReply posted = calls.get(0).detachReply();
            PendingReply abandoned = calls.get(1).detachReply();
            PendingReply dropped = calls.get(2).detachReply();
            assertEquals(3, pool.created(), "one context per call in flight, made lazily");
            assertEquals(0, pool.available());

            abandoned.abandon();
            calls.get(1).release();
            assertEquals(1, pool.available(), "an abandoned reply's context goes back at once");

            ByteBuffer message = posted.replyBuffer();
            message.putInt(posted.xid());
            for (int word : ACCEPTED_SUCCESS) {
                message.putInt(word);
            }
            posted.send(message.flip(), -1);
            calls.get(0).release();
            harness.settle();
            assertEquals(1, client.takeReplies().size());
            assertEquals(2, pool.available(), "a posted reply's context goes back");

            client.disconnect();
            harness.settle();
            ByteBuffer late = dropped.replyBuffer();
            late.putInt(dropped.xid()).putInt(1).flip();
            dropped.send(late, -1);
            calls.get(2).release();
            harness.settle();
            assertEquals(1, connection.counters().get(Counter.REPLIES_DROPPED), "the connection had closed");
            assertEquals(3, pool.available(), "a dropped reply's context goes back too");
            assertEquals(3, pool.created(), "and nothing was made beyond the three");
            assertThrows(IllegalStateException.class, () -> dropped.send(late, -1), "finished replies stay finished");
        }
    }
}
