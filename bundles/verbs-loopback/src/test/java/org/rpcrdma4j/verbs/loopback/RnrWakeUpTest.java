package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.PairOptions;

/**
 * RnrWakeUpTest - issue #31 (D5), threaded fabric: SENDs that met receiver-not-ready under an
 * infinite RNR retry count (7, the client default) ask for no timed retry, so it is the receives
 * posted at their peer that must wake them, in order, with no other traffic on the fabric to do
 * it. Finite RNR retry counts still end in RNR_RETRY_EXCEEDED, as on real hardware.
 *
 * <p>Waits are bounded by a generous {@link #PATIENCE} only so a broken fabric fails instead of
 * hanging; nothing asserts how long anything took.
 */
class RnrWakeUpTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final int SENDS = 60;
    private static final int BYTES = 8;

    private final WorkCompletion[] polled = {new WorkCompletion()};

    @Test
    void sendsParkedOnRnrAreWokenInOrderByTheReceivesPostedAtTheirPeer() throws Exception {
        PairOptions options = PairOptions.defaults().withDepths(SENDS, SENDS).withCompletionQueueCapacity(2 * SENDS);
        assertEquals(QueuePairAttributes.RNR_RETRY_INFINITE, options.rnrRetryCount());
        try (LoopbackTestBed bed = LoopbackTestBed.openThreaded(options)) {
            MemoryRegion source = bed.client.register(SENDS * BYTES, 0);
            MemoryRegion sink = bed.server.register(SENDS * BYTES, Access.LOCAL_WRITE);
            SendWorkRequest send = new SendWorkRequest(1);
            for (int i = 0; i < SENDS; i++) {
                source.buffer().putLong(i * BYTES, 1000 + i);
                bed.client.queuePair().postSend(send.reset(SendOpcode.SEND, i, SendWorkRequest.SIGNALED)
                        .addSge(source, i * BYTES, BYTES));
            }
            // The server has posted nothing: every SEND meets RNR and parks (no completion yet).
            assertNull(poll(bed.client.completionQueue()), "a SEND completed with no receive posted");

            ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
            int half = SENDS / 2;
            // One receive at a time: each post alone must wake the SEND at the head of the peer's queue.
            for (int i = 0; i < half; i++) {
                bed.server.queuePair().postReceive(receive.buffer(sink, i * BYTES, BYTES).id(i).next(null));
                expectCompletion(bed.client.completionQueue(), i, "SEND " + i + " after its receive was posted");
                expectCompletion(bed.server.completionQueue(), i, "receive " + i);
            }
            // Then the rest at once, with no other post to nudge the fabric.
            for (int i = half; i < SENDS; i++) {
                bed.server.queuePair().postReceive(receive.buffer(sink, i * BYTES, BYTES).id(i).next(null));
            }
            for (int i = half; i < SENDS; i++) {
                expectCompletion(bed.client.completionQueue(), i, "SEND " + i + " (receives posted together)");
            }
            for (int i = half; i < SENDS; i++) {
                expectCompletion(bed.server.completionQueue(), i, "receive " + i);
            }
            for (int i = 0; i < SENDS; i++) {
                assertEquals(1000 + i, sink.buffer().getLong(i * BYTES), "SEND " + i + " landed in receive " + i);
            }
        }
    }

    @Test
    void aFiniteRnrRetryCountStillEndsInRnrRetryExceeded() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.openThreaded(PairOptions.defaults().withRnrRetryCount(3))) {
            MemoryRegion source = bed.client.register(64, 0);
            bed.clientSend(source, 64, 7, SendWorkRequest.SIGNALED);
            WorkCompletion c = await(bed.client.completionQueue());
            assertNotNull(c, "the SEND never completed");
            assertEquals(7, c.id());
            assertEquals(CompletionStatus.RNR_RETRY_EXCEEDED, c.status());
        }
    }

    private void expectCompletion(CompletionQueue queue, long id, String what) throws Exception {
        WorkCompletion c = await(queue);
        assertNotNull(c, what + ": no completion (still parked on RNR?)");
        assertEquals(CompletionStatus.SUCCESS, c.status(), what);
        assertEquals(id, c.id(), what + ": completions in order");
    }

    /** @return the next completion, or null when none came within {@link #PATIENCE} */
    private WorkCompletion await(CompletionQueue queue) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        do {
            WorkCompletion c = poll(queue);
            if (c != null) {
                return c;
            }
            Thread.sleep(1);
        } while (System.nanoTime() - deadline < 0);
        return null;
    }

    private WorkCompletion poll(CompletionQueue queue) throws VerbsException {
        return queue.poll(polled, 1) == 1 ? polled[0] : null;
    }
}
