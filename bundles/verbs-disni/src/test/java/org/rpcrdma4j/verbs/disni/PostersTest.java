package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.disni.util.MemBuf;
import com.ibm.disni.verbs.RdmaProvider;
import com.ibm.disni.verbs.StatefulVerbCall;
import com.ibm.disni.verbs.impl.NatIbvQP;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
 * The posters against DiSNI's real stateful calls, without a device: the calls are built on a
 * DiSNI queue pair with a null handle, so each post runs DiSNI's serialisation and our libdisni,
 * which refuses the null queue pair with EINVAL. The records DiSNI wrote are then read from the
 * call's buffer: the reused call carries exactly the fields of the latest request.
 */
@ExtendWith(RequiresLibdisni.class)
class PostersTest {
    private static final int SEND_RECORD = 72;

    private NatIbvQP qp;
    private QueuePairAttributes attributes;

    @BeforeEach
    void nullQueuePair() throws Exception {
        RdmaProvider provider = RdmaProvider.provider();
        Field field = provider.getClass().getDeclaredField("nativeDispatcher");
        field.setAccessible(true);
        qp = new NatIbvQP(0, (NativeDispatcher) field.get(provider));
        CompletionQueue cq = new UnusedQueue();
        attributes = QueuePairAttributes.builder(cq, cq).sendQueueDepth(8).receiveQueueDepth(8).maxSendSge(2).maxReceiveSge(1)
                .maxInlineData(16).build();
    }

    @Test
    void sendCallIsBuiltOncePerShapeAndCarriesTheLatestRequest() throws Exception {
        SendPoster poster = new SendPoster(qp, attributes, false);
        SendWorkRequest wr = new SendWorkRequest(2).reset(SendOpcode.RDMA_WRITE, 41, SendWorkRequest.SIGNALED);
        wr.remote(0x7f0000001000L, 0xabc).sge(0).set(0x1000, 100, 7);
        wr.sge(1).set(0x2000, 200, 8);
        wr.sgeCount(2);
        assertRefusedAt(3, () -> poster.post(wr, 3));
        StatefulVerbCall<?> first = call(poster, 1, 2);
        ByteBuffer record = recordsOf(first);
        assertEquals(41, record.getLong(0));
        assertEquals(2, record.getInt(24), "num_sge");
        assertEquals(0, record.getInt(28), "IBV_WR_RDMA_WRITE");
        assertEquals(SendWorkRequest.SIGNALED, record.getInt(32));
        assertEquals(0x7f0000001000L, record.getLong(40));
        assertEquals(0xabc, record.getInt(48));
        int sges = (int) (record.getLong(16) - addressOf(first));
        assertEquals(SEND_RECORD, sges, "SGEs follow the work request");
        assertEquals(0x2000, record.getLong(sges + 16));
        assertEquals(200, record.getInt(sges + 24));
        assertEquals(8, record.getInt(sges + 28));

        wr.reset(SendOpcode.RDMA_WRITE, 42, SendWorkRequest.FENCE).remote(0x7f0000002000L, 0xdef).sgeCount(2);
        wr.sge(0).set(0x3000, 300, 9);
        assertRefusedAt(0, () -> poster.post(wr, 0));
        assertSame(first, call(poster, 1, 2), "same shape, same call");
        assertEquals(42, record.getLong(0));
        assertEquals(SendWorkRequest.FENCE, record.getInt(32));
        assertEquals(0x7f0000002000L, record.getLong(40));
        assertEquals(0xdef, record.getInt(48));
        assertEquals(0x3000, record.getLong(sges));
        assertEquals(300, record.getInt(sges + 8));
        poster.free();
    }

    @Test
    void requestsTheQueuePairCannotTakeAreRefusedBeforeDisni() {
        SendPoster poster = new SendPoster(qp, attributes, false);
        SendWorkRequest wr = new SendWorkRequest(3).reset(SendOpcode.LOCAL_INV, 1, 0).invalidateKey(5);
        assertRefusedAt(2, () -> poster.post(wr, 2));
        wr.reset(SendOpcode.SEND, 1, 0).sgeCount(3);
        assertRefusedAt(1, () -> poster.post(wr, 1));
        wr.reset(SendOpcode.SEND, 1, SendWorkRequest.INLINE).sgeCount(1);
        wr.sge(0).set(0x1000, 17, 1);
        assertRefusedAt(0, () -> poster.post(wr, 0));
    }

    @Test
    void sendWithInvalidateCarriesTheKeyInTheRecordsInvalidateFieldAndUpdatesItOnReuse() throws Exception {
        SendPoster poster = new SendPoster(qp, attributes, true);
        SendWorkRequest wr = new SendWorkRequest(2).reset(SendOpcode.SEND_WITH_INV, 51, SendWorkRequest.SIGNALED).invalidateKey(0x12345678);
        wr.sge(0).set(0x1000, 64, 7);
        wr.sgeCount(1);
        assertRefusedAt(0, () -> poster.post(wr, 0)); // by libdisni: the queue pair handle is null
        StatefulVerbCall<?> call = call(poster, 3, 1);
        ByteBuffer record = recordsOf(call);
        assertEquals(51, record.getLong(0));
        assertEquals(SendPoster.IBV_WR_SEND_WITH_INV, record.getInt(28), "opcode IBV_WR_SEND_WITH_INV");
        assertEquals(9, record.getInt(28), "enum ibv_wr_opcode");
        assertEquals(0x12345678, record.getInt(SendPoster.RECORD_INVALIDATE_RKEY), "invalidate_rkey");
        assertEquals(0x12345678, record.getInt(SendPoster.RECORD_RDMA_RKEY), "wr.rdma.rkey, where libsiw reads the STag");
        assertEquals(0x1000, record.getLong(SEND_RECORD));

        wr.reset(SendOpcode.SEND_WITH_INV, 52, SendWorkRequest.SIGNALED).invalidateKey(0xcafe0001).sgeCount(1);
        assertRefusedAt(2, () -> poster.post(wr, 2));
        assertSame(call, call(poster, 3, 1), "same shape, same call");
        assertEquals(52, record.getLong(0));
        assertEquals(0xcafe0001, record.getInt(SendPoster.RECORD_INVALIDATE_RKEY), "the latest request's key");
        assertEquals(0xcafe0001, record.getInt(SendPoster.RECORD_RDMA_RKEY), "the latest request's key, for libsiw too");

        wr.reset(SendOpcode.SEND, 53, SendWorkRequest.SIGNALED).sgeCount(1);
        assertRefusedAt(0, () -> poster.post(wr, 0));
        assertEquals(0, recordsOf(call(poster, 0, 1)).getInt(SendPoster.RECORD_INVALIDATE_RKEY), "a plain SEND invalidates nothing");
        poster.free();
    }

    @Test
    void sendWithInvalidateIsRefusedBeforeDisniWhereTheDeviceCannotPostIt() throws Exception {
        SendPoster poster = new SendPoster(qp, attributes, false);
        SendWorkRequest wr = new SendWorkRequest(1).reset(SendOpcode.SEND_WITH_INV, 1, 0).invalidateKey(5).sgeCount(1);
        VerbsException e = assertThrows(VerbsException.class, () -> poster.post(wr, 4));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(4, e.failedIndex());
        assertTrue(e.getMessage().contains("SEND_WITH_INV"), e.getMessage());
        Field calls = SendPoster.class.getDeclaredField("calls");
        calls.setAccessible(true);
        for (StatefulVerbCall<?>[] byCount : (StatefulVerbCall<?>[][]) calls.get(poster)) {
            for (StatefulVerbCall<?> built : byCount) {
                assertEquals(null, built, "no DiSNI call is built for a refused request");
            }
        }
    }

    @Test
    void receiveCallsAreReusedForTheSameIdAndBufferAndRebuiltOtherwise() throws Exception {
        ReceivePoster poster = new ReceivePoster(qp, attributes);
        ReceiveWorkRequest wr = new ReceiveWorkRequest(1).id(5);
        wr.sge(0).set(0x9000, 1024, 3);
        wr.sgeCount(1);
        assertRefusedAt(0, () -> poster.post(wr, 0));
        Object slot = slotOf(poster, 5);
        assertRefusedAt(0, () -> poster.post(wr, 0));
        assertSame(slot, slotOf(poster, 5), "same id and buffer: the call is reused");
        wr.sge(0).set(0xa000, 1024, 3);
        assertRefusedAt(0, () -> poster.post(wr, 0));
        assertNotSame(slot, slotOf(poster, 5), "another buffer under the id: rebuilt");
        poster.free();
    }

    private static void assertRefusedAt(int index, org.junit.jupiter.api.function.Executable post) {
        VerbsException e = assertThrows(VerbsException.class, post);
        assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
        assertEquals(index, e.failedIndex(), e.getMessage());
    }

    private static StatefulVerbCall<?> call(SendPoster poster, int op, int sges) throws Exception {
        Field calls = SendPoster.class.getDeclaredField("calls");
        calls.setAccessible(true);
        StatefulVerbCall<?> call = ((StatefulVerbCall<?>[][]) calls.get(poster))[op][sges];
        assertTrue(call != null, "call built for opcode " + op + " with " + sges + " SGEs");
        return call;
    }

    private static Object slotOf(ReceivePoster poster, long id) throws Exception {
        Field slots = ReceivePoster.class.getDeclaredField("slots");
        slots.setAccessible(true);
        for (Object slot : (Object[]) slots.get(poster)) {
            if (slot != null) {
                Field slotId = slot.getClass().getDeclaredField("id");
                slotId.setAccessible(true);
                if (slotId.getLong(slot) == id) {
                    return slot;
                }
            }
        }
        throw new AssertionError("no slot for receive " + id);
    }

    private static MemBuf commandOf(StatefulVerbCall<?> call) throws Exception {
        Field cmd = call.getClass().getDeclaredField("cmd");
        cmd.setAccessible(true);
        return (MemBuf) cmd.get(call);
    }

    private static ByteBuffer recordsOf(StatefulVerbCall<?> call) throws Exception {
        return commandOf(call).getBuffer().duplicate().order(ByteOrder.nativeOrder());
    }

    private static long addressOf(StatefulVerbCall<?> call) throws Exception {
        return commandOf(call).address();
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
