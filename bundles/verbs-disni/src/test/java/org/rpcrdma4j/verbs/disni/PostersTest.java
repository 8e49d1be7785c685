package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The posters against our libdisni, without a device: they post to a null queue pair handle, so
 * each post runs the real record staging and libdisni's entry point, which refuses the null queue
 * pair with EINVAL at request 0 before ibv_post_send. The records the poster wrote are then read
 * from its staging area: one post carries the whole chain, linked in order.
 */
@ExtendWith(RequiresLibdisni.class)
class PostersTest {
    private static final int SEND_RECORD = 72;
    private static final int RECEIVE_RECORD = 32;
    private static final long NULL_QUEUE_PAIR = 0;

    private QueuePairAttributes attributes;

    @BeforeEach
    void attributes() {
        CompletionQueue cq = new UnusedQueue();
        attributes = QueuePairAttributes.builder(cq, cq).sendQueueDepth(8).receiveQueueDepth(8).maxSendSge(2).maxReceiveSge(1)
                .maxInlineData(16).build();
    }

    @Test
    void aReplysWriteAndSendGoToTheDeviceInOnePostLinkedInOrder() {
        SendPoster poster = new SendPoster(NULL_QUEUE_PAIR, attributes, true);
        SendWorkRequest write = new SendWorkRequest(2).reset(SendOpcode.RDMA_WRITE, 41, 0);
        write.remote(0x7f0000001000L, 0xabc).sge(0).set(0x1000, 100, 7);
        write.sge(1).set(0x2000, 200, 8);
        write.sgeCount(2);
        SendWorkRequest send = new SendWorkRequest(2).reset(SendOpcode.SEND_WITH_INV, 42, SendWorkRequest.SIGNALED).invalidateKey(0x12345678);
        send.sge(0).set(0x3000, 64, 9);
        send.sgeCount(1);
        write.next(send);

        assertRefusedAt(0, () -> poster.post(write)); // by libdisni: the queue pair handle is null
        assertEquals(1, poster.posts(), "one ibv_post_send for the chain");
        PostRecords records = poster.records();
        ByteBuffer b = records.buffer();
        int first = records.recordOffset(0);
        assertEquals(41, b.getLong(first));
        assertEquals(records.recordAddress(1), b.getLong(first + PostRecords.RECORD_NEXT), "linked to the Send");
        assertEquals(records.sgeAddress(0), b.getLong(first + PostRecords.RECORD_SG_LIST));
        assertEquals(SEND_RECORD, records.sgeAddress(0) - records.recordAddress(0), "SGEs follow the record");
        assertEquals(2, b.getInt(first + PostRecords.RECORD_NUM_SGE));
        assertEquals(0, b.getInt(first + SendPoster.RECORD_OPCODE), "IBV_WR_RDMA_WRITE");
        assertEquals(0, b.getInt(first + SendPoster.RECORD_SEND_FLAGS), "unsignaled");
        assertEquals(0x7f0000001000L, b.getLong(first + SendPoster.RECORD_REMOTE_ADDRESS));
        assertEquals(0xabc, b.getInt(first + SendPoster.RECORD_RDMA_RKEY));
        int sges = records.sgeOffset(0);
        assertEquals(0x1000, b.getLong(sges));
        assertEquals(0x2000, b.getLong(sges + 16));
        assertEquals(200, b.getInt(sges + 24));
        assertEquals(8, b.getInt(sges + 28));

        int second = records.recordOffset(1);
        assertEquals(42, b.getLong(second));
        assertEquals(0, b.getLong(second + PostRecords.RECORD_NEXT), "the chain ends at the Send");
        assertEquals(9, b.getInt(second + SendPoster.RECORD_OPCODE), "enum ibv_wr_opcode IBV_WR_SEND_WITH_INV");
        assertEquals(SendWorkRequest.SIGNALED, b.getInt(second + SendPoster.RECORD_SEND_FLAGS));
        assertEquals(0x12345678, b.getInt(second + SendPoster.RECORD_INVALIDATE_RKEY), "invalidate_rkey");
        assertEquals(0x12345678, b.getInt(second + SendPoster.RECORD_RDMA_RKEY), "wr.rdma.rkey, where libsiw reads the STag");
        assertEquals(0x3000, b.getLong(records.sgeOffset(1)));

        SendWorkRequest plain = new SendWorkRequest(1).reset(SendOpcode.SEND, 43, SendWorkRequest.SIGNALED);
        plain.sge(0).set(0x4000, 8, 1);
        plain.sgeCount(1);
        assertRefusedAt(0, () -> poster.post(plain));
        assertEquals(2, poster.posts());
        assertEquals(43, b.getLong(first), "the staging area is reused from its first slot");
        assertEquals(0, b.getLong(first + PostRecords.RECORD_NEXT), "a chain of one ends at once");
        assertEquals(0, b.getInt(first + SendPoster.RECORD_INVALIDATE_RKEY), "a plain SEND invalidates nothing");
    }

    @Test
    void aChainLongerThanABatchIsPostedInPiecesOfABatch() {
        SendPoster poster = new SendPoster(NULL_QUEUE_PAIR, attributes, false);
        SendWorkRequest head = null;
        for (int i = SendPoster.BATCH + 3; i > 0; i--) {
            SendWorkRequest wr = new SendWorkRequest(1).reset(SendOpcode.RDMA_WRITE, i, 0).remote(0x1000L * i, 1);
            wr.sge(0).set(0x8000, 4, 1);
            wr.sgeCount(1).next(head);
            head = wr;
        }
        SendWorkRequest chain = head;
        assertRefusedAt(0, () -> poster.post(chain));
        assertEquals(1, poster.posts(), "the first piece failed, so the rest was never posted");
        PostRecords records = poster.records();
        ByteBuffer b = records.buffer();
        int last = records.recordOffset(SendPoster.BATCH - 1);
        assertEquals(SendPoster.BATCH, b.getLong(last), "the piece holds the first BATCH requests");
        assertEquals(0, b.getLong(last + PostRecords.RECORD_NEXT), "and ends there");
        assertEquals(records.recordAddress(SendPoster.BATCH - 1), b.getLong(records.recordOffset(SendPoster.BATCH - 2) + PostRecords.RECORD_NEXT));
    }

    @Test
    void requestsTheQueuePairCannotTakeAreRefusedAtTheirIndexBeforeTheDevice() {
        SendPoster poster = new SendPoster(NULL_QUEUE_PAIR, attributes, false);
        SendWorkRequest wr = new SendWorkRequest(3).reset(SendOpcode.LOCAL_INV, 1, 0).invalidateKey(5);
        assertRefusedAt(0, () -> poster.post(wr));
        wr.reset(SendOpcode.SEND, 1, 0).sgeCount(3);
        assertRefusedAt(0, () -> poster.post(wr));
        wr.reset(SendOpcode.SEND, 1, SendWorkRequest.INLINE).sgeCount(1);
        wr.sge(0).set(0x1000, 17, 1);
        assertRefusedAt(0, () -> poster.post(wr));
        SendWorkRequest invalidate = new SendWorkRequest(1).reset(SendOpcode.SEND_WITH_INV, 1, 0).invalidateKey(5).sgeCount(1);
        VerbsException e = assertThrows(VerbsException.class, () -> poster.post(invalidate));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("SEND_WITH_INV"), e.getMessage());
        assertEquals(0, poster.posts(), "nothing refused reaches the device");
    }

    @Test
    void theRequestsBeforeARefusedOneArePostedFirst() {
        SendPoster poster = new SendPoster(NULL_QUEUE_PAIR, attributes, false);
        SendWorkRequest good = new SendWorkRequest(3).reset(SendOpcode.SEND, 1, 0).sgeCount(1);
        SendWorkRequest tooManySges = new SendWorkRequest(3).reset(SendOpcode.SEND, 2, 0).sgeCount(3);
        good.next(tooManySges);
        VerbsException e = assertThrows(VerbsException.class, () -> poster.post(good));
        assertEquals(1, poster.posts(), "the good prefix went to the device");
        // here the device (libdisni's null queue pair) refuses the prefix itself, so that failure,
        // the earlier one, is what is reported
        assertEquals(0, e.failedIndex(), e.getMessage());
        assertTrue(e.getMessage().contains("ibv_post_send"), e.getMessage());
    }

    @Test
    void receivesAreStagedAsOneChainWithTheirBuffers() {
        ReceivePoster poster = new ReceivePoster(NULL_QUEUE_PAIR, attributes);
        ReceiveWorkRequest first = new ReceiveWorkRequest(1).id(5);
        first.sge(0).set(0x9000, 1024, 3);
        first.sgeCount(1);
        ReceiveWorkRequest second = new ReceiveWorkRequest(1).id(6);
        second.sge(0).set(0xa000, 1024, 3);
        second.sgeCount(1);
        first.next(second);
        assertRefusedAt(0, () -> poster.post(first));
        PostRecords records = poster.records();
        ByteBuffer b = records.buffer();
        assertEquals(RECEIVE_RECORD, records.sgeAddress(0) - records.recordAddress(0), "SGEs follow the record");
        assertEquals(5, b.getLong(records.recordOffset(0)));
        assertEquals(records.recordAddress(1), b.getLong(records.recordOffset(0) + PostRecords.RECORD_NEXT));
        assertEquals(records.sgeAddress(0), b.getLong(records.recordOffset(0) + PostRecords.RECORD_SG_LIST));
        assertEquals(1, b.getInt(records.recordOffset(0) + PostRecords.RECORD_NUM_SGE));
        assertEquals(0x9000, b.getLong(records.sgeOffset(0)));
        assertEquals(6, b.getLong(records.recordOffset(1)));
        assertEquals(0, b.getLong(records.recordOffset(1) + PostRecords.RECORD_NEXT));
        assertEquals(0xa000, b.getLong(records.sgeOffset(1)));
        assertEquals(1024, b.getInt(records.sgeOffset(1) + 8));

        ReceiveWorkRequest tooMany = new ReceiveWorkRequest(2).id(7).sgeCount(2);
        assertRefusedAt(0, () -> poster.post(tooMany));
    }

    private static void assertRefusedAt(int index, org.junit.jupiter.api.function.Executable post) {
        VerbsException e = assertThrows(VerbsException.class, post);
        assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
        assertEquals(index, e.failedIndex(), e.getMessage());
    }

    /** Only to build attributes: the posters never touch the completion queues. */
    private static final class UnusedQueue implements CompletionQueue {
        @Override
        public VerbsDevice device() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int capacity() {
            return 16;
        }

        @Override
        public int poll(WorkCompletion[] completions, int max) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void requestNotification() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean awaitNotification(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
