package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.CompletionOpcode;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.QueuePairState;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/** The provider's pure logic: capability mapping, errno parsing, opcode mapping, discovery, configuration. */
class DisniProviderUnitTest {
    private static int[] limits(int transport, int linkLayer, int maxSge, int maxSgeRd) {
        int[] l = new int[DisniExtensions.DEVICE_FIELDS];
        l[DisniExtensions.DEVICE_TRANSPORT_TYPE] = transport;
        l[DisniExtensions.DEVICE_LINK_LAYER] = linkLayer;
        l[DisniExtensions.DEVICE_MAX_SGE] = maxSge;
        l[DisniExtensions.DEVICE_MAX_SGE_RD] = maxSgeRd;
        l[DisniExtensions.DEVICE_MAX_QP_WR] = 16384;
        l[DisniExtensions.DEVICE_MAX_CQE] = 32767;
        l[DisniExtensions.DEVICE_MAX_QP_INIT_RD_ATOM] = 128;
        l[DisniExtensions.DEVICE_MAX_QP_RD_ATOM] = 64;
        return l;
    }

    @Test
    void capabilitiesMapTransportAndCapSgesAtWhatLibdisniGivesAQueuePair() {
        DeviceCapabilities rxe = DisniDevice.capabilitiesOf(limits(0, DisniExtensions.LINK_LAYER_ETHERNET, 32, 32), 64);
        assertEquals(TransportType.ROCE, rxe.transportType());
        assertEquals(DisniDevice.LIBDISNI_MAX_SGE, rxe.maxSendSge());
        assertEquals(DisniDevice.LIBDISNI_MAX_SGE, rxe.maxReadSge());
        assertEquals(16384, rxe.maxQueueDepth());
        assertEquals(32767, rxe.maxCompletionQueueEntries());
        assertEquals(128, rxe.maxOutstandingReads());
        assertEquals(64, rxe.maxIncomingReads());
        assertFalse(rxe.fastRegistration());
        assertFalse(rxe.remoteInvalidation());
        assertEquals(0, rxe.maxFastRegistrationLength());

        DeviceCapabilities siw = DisniDevice.capabilitiesOf(limits(DisniExtensions.TRANSPORT_IWARP, DisniExtensions.LINK_LAYER_ETHERNET, 6, 1), 0);
        assertEquals(TransportType.IWARP, siw.transportType());
        assertTrue(siw.transportType().readSinkRequiresRemoteWrite());
        assertEquals(6, siw.maxSendSge());
        assertEquals(1, siw.maxReadSge());

        DeviceCapabilities ib = DisniDevice.capabilitiesOf(limits(0, 1, 30, 0), 64);
        assertEquals(TransportType.INFINIBAND, ib.transportType());
        assertEquals(1, ib.maxReadSge(), "a device reporting 0 READ SGEs still reads into one");
    }

    @Test
    void remoteInvalidationFollowsTheDevicesMemoryManagementExtensionsFlag() {
        int[] withExtensions = limits(0, DisniExtensions.LINK_LAYER_ETHERNET, 32, 32);
        withExtensions[DisniExtensions.DEVICE_CAP_FLAGS] = DisniDevice.IBV_DEVICE_MEM_MGT_EXTENSIONS | 1 | (1 << 15);
        assertTrue(DisniDevice.capabilitiesOf(withExtensions, 64).remoteInvalidation());
        assertEquals(1 << 21, DisniDevice.IBV_DEVICE_MEM_MGT_EXTENSIONS, "verbs.h: IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21");
        int[] without = limits(0, DisniExtensions.LINK_LAYER_ETHERNET, 32, 32);
        without[DisniExtensions.DEVICE_CAP_FLAGS] = ~DisniDevice.IBV_DEVICE_MEM_MGT_EXTENSIONS;
        DeviceCapabilities capabilities = DisniDevice.capabilitiesOf(without, 64);
        assertFalse(capabilities.remoteInvalidation());
        assertFalse(capabilities.fastRegistration(), "user-space verbs still have no fast registration");
    }

    @Test
    void libdisniErrnoAndWorkRequestIndexBecomeTheVerbsException() {
        VerbsException post = DisniErrors.toVerbs("post", new IOException("ibv_post_send failed: Cannot allocate memory [errno 12] [wr 3]"));
        assertEquals(Errno.ENOMEM, post.errno());
        assertEquals(3, post.failedIndex());
        VerbsException bind = DisniErrors.toVerbs("bind", new IOException("rdma_bind_addr failed: Address already in use [errno 98]"));
        assertEquals(Errno.EADDRINUSE, bind.errno());
        assertEquals(-1, bind.failedIndex());
        assertEquals(Errno.EBADF, DisniErrors.toVerbs("post", new IOException("Trying to post send on closed QP")).errno());
        assertEquals(DisniErrors.EIO, DisniErrors.toVerbs("x", new IOException("Polling CQ failed")).errno());
        assertEquals(DisniErrors.EIO, DisniErrors.toVerbs("x", new IOException((String) null)).errno());
        assertEquals(-1, DisniErrors.errnoOf(new IOException("[errno twelve]")));
    }

    /** A VerbsException of ours caught as DiSNI's IOException keeps its errno (was EIO: EBUSY lost). */
    @Test
    void ourOwnVerbsExceptionKeepsItsErrnoAndIndex() {
        VerbsException busy = DisniErrors.toVerbs("close", new VerbsException("completion queue still used", Errno.EBUSY));
        assertEquals(Errno.EBUSY, busy.errno());
        assertEquals(-1, busy.failedIndex());
        VerbsException full = DisniErrors.toVerbs("post", new VerbsException("queue full", Errno.ENOMEM, 2));
        assertEquals(Errno.ENOMEM, full.errno());
        assertEquals(2, full.failedIndex());
    }

    @Test
    void ibvQueuePairStatesMapToTheContractsStates() {
        assertEquals(QueuePairState.INIT, DisniQueuePair.stateOf(0), "RESET");
        assertEquals(QueuePairState.INIT, DisniQueuePair.stateOf(1), "INIT");
        assertEquals(QueuePairState.INIT, DisniQueuePair.stateOf(2), "RTR");
        assertEquals(QueuePairState.READY_TO_SEND, DisniQueuePair.stateOf(3), "RTS");
        assertEquals(QueuePairState.READY_TO_SEND, DisniQueuePair.stateOf(4), "SQD");
        assertEquals(QueuePairState.ERROR, DisniQueuePair.stateOf(5), "SQE");
        assertEquals(QueuePairState.ERROR, DisniQueuePair.stateOf(6), "ERR");
    }

    @Test
    void acceptTakesTheRequestsDepthsAsTheConnectionManagerTurnedThemRound() {
        org.rpcrdma4j.verbs.QueuePairAttributes a = org.rpcrdma4j.verbs.QueuePairAttributes.builder(new NoQueue(), new NoQueue())
                .initiatorDepth(8).responderResources(16).build();
        // The Linux client (xprtrdma) connects with initiator_depth 0 and responder_resources =
        // its device's max_qp_rd_atom (rxe: 128); the CM reports that to us turned round.
        int[] depths = DisniConnection.acceptDepths(a, 128, 0);
        assertEquals(8, depths[0], "we may READ from the client: our own depth, the client serves 128");
        assertEquals(0, depths[1], "the client never READs from us: no responder resources");
        // A peer that serves 4 READs and issues 32: at most 4 of ours in flight, 16 served.
        depths = DisniConnection.acceptDepths(a, 4, 32);
        assertEquals(4, depths[0]);
        assertEquals(16, depths[1]);
    }

    @Test
    void completionOpcodesMapFromIbvWcOpcode() {
        assertEquals(CompletionOpcode.SEND, DisniCompletionQueue.opcodeOf(0));
        assertEquals(CompletionOpcode.RDMA_WRITE, DisniCompletionQueue.opcodeOf(1));
        assertEquals(CompletionOpcode.RDMA_READ, DisniCompletionQueue.opcodeOf(2));
        assertEquals(CompletionOpcode.LOCAL_INV, DisniCompletionQueue.opcodeOf(6));
        assertEquals(CompletionOpcode.RECV, DisniCompletionQueue.opcodeOf(128));
        assertEquals(CompletionOpcode.RECV, DisniCompletionQueue.opcodeOf(129));
    }

    @Test
    void serviceLoaderFindsTheProviderByName() {
        boolean found = false;
        for (VerbsProvider provider : ServiceLoader.load(VerbsProvider.class)) {
            if (DisniProvider.NAME.equals(provider.name())) {
                assertTrue(provider instanceof DisniProvider);
                ((DisniProvider) provider).close();
                found = true;
            }
        }
        assertTrue(found, "META-INF/services names " + DisniProvider.class.getName());
    }

    @Test
    void anInlineLimitOutsideItsRangeIsRefusedNamingThePropertyAndTheValue() {
        for (int bad : new int[] {-1, DisniProvider.MAX_MAX_INLINE_DATA + 1, Integer.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new DisniProviderComponent(config(bad)));
            assertTrue(e.getMessage().startsWith("maxInlineData") && e.getMessage().endsWith("was " + bad), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> new DisniProvider(bad));
        }
        for (int good : new int[] {0, DisniProvider.DEFAULT_MAX_INLINE_DATA, DisniProvider.MAX_MAX_INLINE_DATA}) {
            org.junit.jupiter.api.Assertions.assertDoesNotThrow(() -> new DisniProviderComponent(config(good)), "maxInlineData " + good);
        }
    }

    /** Only to build attributes. */
    private static final class NoQueue implements org.rpcrdma4j.verbs.CompletionQueue {
        @Override
        public org.rpcrdma4j.verbs.VerbsDevice device() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int capacity() {
            return 1;
        }

        @Override
        public int poll(org.rpcrdma4j.verbs.WorkCompletion[] completions, int max) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void requestNotification() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean awaitNotification(long timeout, java.util.concurrent.TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }

    private static DisniProviderComponent.Config config(int maxInlineData) {
        return new DisniProviderComponent.Config() {
            @Override
            public int maxInlineData() {
                return maxInlineData;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return DisniProviderComponent.Config.class;
            }
        };
    }
}
