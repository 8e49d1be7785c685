package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.FastRegistrationRegion;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.QueuePairState;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.conformance.PairOptions;

/** Keys, domains, access, inline data, fast registration rules and device limits. */
class MemorySemanticsTest {
    private static final DeviceCapabilities IWARP_ONE_READ_SGE =
            new DeviceCapabilities(TransportType.IWARP, 4, 4, 1, 64, 1024, 4096, 8, 8, true, true, 1 << 20);

    @Test
    void aRemoteKeyOfAnotherProtectionDomainIsRefused() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            try (ProtectionDomain other = bed.client.connection().device().allocateProtectionDomain()) {
                MemoryRegion foreign = other.registerMemory(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE | Access.REMOTE_READ);
                try {
                    MemoryRegion sink = bed.server.register(64, Access.LOCAL_WRITE);
                    bed.server.queuePair().postSend(new SendWorkRequest(1).reset(SendOpcode.RDMA_READ, 1, SendWorkRequest.SIGNALED)
                            .addSge(sink, 0, 64).remote(foreign.address(), foreign.rkey()));
                    bed.fabric.runUntilIdle();
                    assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, bed.pollOne(bed.server.completionQueue()).status());
                } finally {
                    foreign.deregister();
                }
            }
        }
    }

    @Test
    void aReadSinkWithoutLocalWriteIsALocalProtectionError() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion exposed = bed.client.register(64, Access.LOCAL_WRITE | Access.REMOTE_READ);
            MemoryRegion readOnlySink = bed.server.register(64, 0);
            bed.server.queuePair().postSend(new SendWorkRequest(1).reset(SendOpcode.RDMA_READ, 1, SendWorkRequest.SIGNALED)
                    .addSge(readOnlySink, 0, 64).remote(exposed.address(), exposed.rkey()));
            bed.fabric.runUntilIdle();
            assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, bed.pollOne(bed.server.completionQueue()).status());
            assertEquals(QueuePairState.READY_TO_SEND, bed.client.queuePair().state(), "a local error leaves the peer alone");
        }
    }

    @Test
    void onIwarpAReadSinkNeedsRemoteWrite() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(IWARP_ONE_READ_SGE, PairOptions.defaults())) {
            MemoryRegion exposed = bed.client.register(64, Access.LOCAL_WRITE | Access.REMOTE_READ);
            MemoryRegion localOnly = bed.server.register(64, Access.LOCAL_WRITE);
            bed.server.queuePair().postSend(new SendWorkRequest(1).reset(SendOpcode.RDMA_READ, 1, SendWorkRequest.SIGNALED)
                    .addSge(localOnly, 0, 64).remote(exposed.address(), exposed.rkey()));
            bed.fabric.runUntilIdle();
            assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, bed.pollOne(bed.server.completionQueue()).status());
        }
    }

    @Test
    void aReadWithMoreSgesThanTheDeviceAllowsFailsAtPost() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(IWARP_ONE_READ_SGE, PairOptions.defaults())) {
            MemoryRegion sink = bed.server.register(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            SendWorkRequest read = new SendWorkRequest(2).reset(SendOpcode.RDMA_READ, 1, SendWorkRequest.SIGNALED)
                    .addSge(sink, 0, 32).addSge(sink, 32, 32).remote(0, 0);
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> bed.server.queuePair().postSend(read)).errno());
        }
    }

    @Test
    void inlineDataIsCopiedAtPostTime() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults().withMaxInlineData(64))) {
            MemoryRegion source = bed.client.register(128, 0);
            MemoryRegion sink = bed.server.register(64, Access.LOCAL_WRITE);
            bed.serverReceive(sink, 0, 64, 1);
            source.buffer().put(0, (byte) 1);
            bed.clientSend(source, 32, 2, SendWorkRequest.SIGNALED | SendWorkRequest.INLINE);
            source.buffer().put(0, (byte) 2);
            bed.fabric.runUntilIdle();
            assertEquals(32, bed.pollOne(bed.server.completionQueue()).byteCount());
            assertEquals(1, sink.buffer().get(0), "the byte as it was when posted");
            VerbsException tooLong = assertThrows(VerbsException.class, () -> bed.clientSend(source, 65, 3, SendWorkRequest.INLINE));
            assertEquals(Errno.EINVAL, tooLong.errno());
        }
    }

    @Test
    void localInvalidateOfAPlainRegionAndReRegisteringAValidRegionFail() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion plain = bed.client.register(64, Access.LOCAL_WRITE);
            bed.client.queuePair().postSend(new SendWorkRequest(1).reset(SendOpcode.LOCAL_INV, 1, SendWorkRequest.SIGNALED).invalidateKey(plain.lkey()));
            bed.fabric.runUntilIdle();
            assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, bed.pollOne(bed.client.completionQueue()).status());
            FastRegistrationRegion frmr = bed.server.own(bed.server.protectionDomain().allocateFastRegistrationRegion(4096));
            frmr.bumpKey();
            SendWorkRequest reg = new SendWorkRequest(1).reset(SendOpcode.REG_MR, 2, SendWorkRequest.SIGNALED)
                    .registration(frmr, ByteBuffer.allocateDirect(4096), 0, 4096, Access.LOCAL_WRITE);
            bed.server.queuePair().postSend(reg);
            bed.fabric.runUntilIdle();
            assertEquals(CompletionStatus.SUCCESS, bed.pollOne(bed.server.completionQueue()).status());
            assertThrows(IllegalStateException.class, frmr::bumpKey, "a registered region keeps its key");
            bed.server.queuePair().postSend(reg.reset(SendOpcode.REG_MR, 3, SendWorkRequest.SIGNALED)
                    .registration(frmr, ByteBuffer.allocateDirect(4096), 0, 4096, Access.LOCAL_WRITE));
            bed.fabric.runUntilIdle();
            assertEquals(CompletionStatus.LOCAL_QP_OPERATION_ERROR, bed.pollOne(bed.server.completionQueue()).status());
        }
    }

    @Test
    void queuePairAttributesBeyondTheDeviceAreRefused() throws Exception {
        try (LoopbackFabric fabric = LoopbackFabric.builder().capabilities(IWARP_ONE_READ_SGE).build();
                var manager = fabric.provider().openConnectionManager()) {
            var connection = manager.createConnection(null, new InetSocketAddress(InetAddress.getLoopbackAddress(), 1), Duration.ofSeconds(1));
            ProtectionDomain pd = connection.device().allocateProtectionDomain();
            var cq = connection.device().createCompletionQueue(16);
            try {
                QueuePairAttributes tooDeep = QueuePairAttributes.builder(cq, cq).sendQueueDepth(4096).build();
                assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> connection.createQueuePair(pd, tooDeep)).errno());
                QueuePairAttributes tooManySges = QueuePairAttributes.builder(cq, cq).maxSendSge(5).build();
                assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> connection.createQueuePair(pd, tooManySges)).errno());
            } finally {
                connection.close();
                cq.close();
                pd.close();
            }
        }
    }
}
