package org.rpcrdma4j.disni.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.disni.util.NativeAffinity;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.RdmaProvider;
import com.ibm.disni.verbs.impl.NatIbvRecvWR;
import com.ibm.disni.verbs.impl.NatIbvSendWR;
import com.ibm.disni.verbs.impl.NatIbvSge;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import com.ibm.disni.verbs.impl.SockAddrIn;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Loads our libdisni.so through DiSNI 2.1's own code path (RdmaProvider → NativeDispatcher:
 * System.loadLibrary("disni") and its version check) and exercises it on a machine with or
 * without an RDMA device. Needs no device; skipped only when the build skipped the library (no
 * rdma-core headers), with the reason the build recorded.
 */
@ExtendWith(LibdisniBuilt.class)
class LibDisniTest {
    private static final String ERRNO_EINVAL = "[errno 22]";
    private static final String ERRNO_ENODEV = "[errno 19]";
    private static final String VERBS_CLASS = "/sys/class/infiniband_verbs";

    private static NativeDispatcher dispatcher;

    @BeforeAll
    static void loadThroughDisni() throws Exception {
        RdmaProvider provider = RdmaProvider.provider(); // NativeDispatcher: loadLibrary("disni"), version check
        assertEquals(32, provider.getVersion(), "_getVersion() as DiSNI's RdmaProvider reports it");
        Field field = provider.getClass().getDeclaredField("nativeDispatcher");
        field.setAccessible(true);
        dispatcher = (NativeDispatcher) field.get(provider);
    }

    /** The records the library reads and writes are the ones DiSNI's Java side serialises. */
    @Test
    void recordSizesAndOffsetsMatchDisniSerialisation() {
        assertEquals(NatIbvSendWR.CSIZE, dispatcher._getIbvSendWRSize(), "send work request record");
        assertEquals(NatIbvRecvWR.CSIZE, dispatcher._getIbvRecvWRSize(), "receive work request record");
        assertEquals(NatIbvSge.CSIZE, dispatcher._getIbvSgeSize(), "SGE record");
        assertEquals(IbvWC.CSIZE, dispatcher._getIbvWCSize(), "work completion record");
        assertEquals(NatIbvSendWR.REMOTEADDR_OFFSET, dispatcher._getRemoteAddressOffset(), "remote address offset");
        assertEquals(NatIbvSendWR.RKEY_OFFSET, dispatcher._getRKeyOffset(), "rkey offset");
        assertEquals(SockAddrIn.CSIZE, dispatcher._getSockAddrInSize(), "socket address record");
    }

    /**
     * rdma_create_event_channel needs a device: librdmacm initialises by listing the verbs devices
     * and fails with ENODEV when there is none. With a device, the channel is created and destroyed.
     */
    @Test
    void eventChannelFailsCleanlyWithoutDeviceAndWorksWithOne() throws IOException {
        if (hasVerbsDevice()) {
            RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
            assertTrue(channel.isOpen());
            assertEquals(0, channel.destroyEventChannel());
        } else {
            IOException e = assertThrows(IOException.class, RdmaEventChannel::createEventChannel);
            assertTrue(e.getMessage().startsWith("rdma_create_event_channel failed"), e.getMessage());
            assertTrue(e.getMessage().endsWith(ERRNO_ENODEV), e.getMessage());
        }
    }

    /** Null handles are refused with EINVAL (an exception or a negative errno), never a crash. */
    @Test
    void nullHandlesAreRefusedWithEinval() {
        assertEinval(assertThrows(IOException.class, () -> dispatcher._createId(0, RdmaCm.RDMA_PS_TCP)));
        assertEinval(assertThrows(IOException.class, () -> dispatcher._bindAddr(0, 0)));
        assertEinval(assertThrows(IOException.class, () -> dispatcher._allocPd(0)));
        assertEinval(assertThrows(IOException.class, () -> dispatcher._createCompChannel(0)));
        assertEinval(assertThrows(IOException.class, () -> dispatcher._regMr(0, 0, 1, 0, 0, 0, 0)));
        assertEinval(assertThrows(IOException.class, () -> dispatcher._postSend(0, 0)));
        assertEinval(assertThrows(IOException.class, () -> dispatcher._postRecv(0, 0)));
        assertEinval(assertThrows(IOException.class, () -> dispatcher._pollCQ(0, 1, 0)));
        assertEinval(assertThrows(IOException.class, () -> dispatcher._deregMr(0)));
        assertEinval(assertThrows(IOException.class, () -> dispatcher._modifyQP(0, 0)));
        assertEquals(-22, dispatcher._getCmEvent(0, 0, 0, 0));
        assertEquals(-22, dispatcher._destroyCmId(0));
        assertEquals(-22, dispatcher._destroyEventChannel(0));
        assertEquals(-22, dispatcher._destroyQP(0));
        assertEquals(-22, dispatcher._destroyEp(0));
        assertEquals(-22, dispatcher._destroyCQ(0));
        assertEquals(-22, dispatcher._deallocPd(0));
        assertEquals(-22, dispatcher._destroyCompChannel(0));
        assertEquals(-22, dispatcher._ackCqEvent(0, 1));
        assertEquals(-22, dispatcher._disconnect(0));
        assertEquals(-22, dispatcher._getSrcAddr(0, 0));
        assertEquals(-22, dispatcher._queryOdpSupport(0));
    }

    /**
     * The extension's device list is what libibverbs enumerates. Without the kernel's verbs class
     * (no /sys/class/infiniband_verbs: no RDMA driver loaded) ibv_get_device_list fails with
     * ENOSYS; with it, the list names exactly the devices there (possibly none).
     */
    @Test
    void extensionListsTheDevicesLibibverbsSees() throws IOException {
        if (!new File(VERBS_CLASS).isDirectory()) {
            IOException e = assertThrows(IOException.class, DisniExtensions::deviceNames);
            assertTrue(e.getMessage().endsWith("[errno 38]"), e.getMessage());
        } else {
            String[] names = DisniExtensions.deviceNames();
            assertEquals(hasVerbsDevice(), names.length > 0, "devices: " + String.join(",", names));
        }
    }

    /** The extension refuses null handles and unfit buffers with EINVAL, never a crash. */
    @Test
    void extensionRefusesNullHandlesWithEinval() {
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.deviceName(0)));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.queryDevice(0, new int[DisniExtensions.DEVICE_FIELDS])));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.lastEventStatus(0)));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.lastEventReadDepths(0)));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.lastEventPrivateData(0, ByteBuffer.allocateDirect(255))));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.connect(0, null, 0, 1, 1, 7, 7)));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.accept(0, null, 0, 1, 1, 7)));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.reject(0, null, 0)));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.queryQueuePair(0, new int[DisniExtensions.QP_FIELDS])));
    }

    /**
     * The completion channel's wait set and the async-event calls bind and refuse null handles and
     * unfit arguments with EINVAL (thrown, or returned negated on the hot-path calls), never a crash.
     */
    @Test
    void waitSetAndAsyncEventCallsBindAndRefuseBadArguments() throws IOException {
        assertEquals(-22, DisniExtensions.awaitWaitSet(0, 0, new int[1], 1));
        assertEquals(-22, DisniExtensions.wakeWaitSet(0));
        DisniExtensions.closeWaitSet(0); // nothing to free
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.addToWaitSet(0, 1)));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.setCompletionQueueCookie(0, 1)));
        assertEinval(assertThrows(IOException.class, () -> DisniExtensions.prepareAsyncEvents(0)));
        assertEquals(-22L, DisniExtensions.takeAsyncEvent(0));
        long set = DisniExtensions.openWaitSet();
        try {
            assertNotEquals(0L, set);
            assertEinval(assertThrows(IOException.class, () -> DisniExtensions.addToWaitSet(set, 0)));
            assertEquals(-22, DisniExtensions.awaitWaitSet(set, 0, new int[1], 2), "max beyond the array");
            assertEquals(-22, DisniExtensions.awaitWaitSet(set, 0, null, 1));
            assertEquals(0, DisniExtensions.awaitWaitSet(set, 0, new int[1], 1));
            assertEquals(0, DisniExtensions.wakeWaitSet(set));
            assertEquals(DisniExtensions.WAIT_SET_WOKEN, DisniExtensions.awaitWaitSet(set, 60_000, new int[1], 1));
        } finally {
            DisniExtensions.closeWaitSet(set);
        }
    }

    /**
     * NativeAffinity: pinning to one CPU of the thread's mask takes effect and the mask restores;
     * DiSNI's wrapper ignores an empty mask, and the native method itself refuses it.
     */
    @Test
    void affinityPinsRestoresAndRejectsEmptyMask() throws Exception {
        long mask = NativeAffinity.getAffinity();
        assertNotEquals(0L, mask, "the thread runs on at least one CPU");
        long lowest = Long.lowestOneBit(mask);
        try {
            NativeAffinity.setAffinity(lowest);
            assertEquals(lowest, NativeAffinity.getAffinity());
        } finally {
            NativeAffinity.setAffinity(mask);
        }
        assertEquals(mask, NativeAffinity.getAffinity());
        NativeAffinity.setAffinity(0); // DiSNI's Java guard: masks <= 0 are not passed down
        assertEquals(mask, NativeAffinity.getAffinity());
        Method setNative = NativeAffinity.class.getDeclaredMethod("_setAffinity", long.class);
        setNative.setAccessible(true);
        InvocationTargetException e = assertThrows(InvocationTargetException.class, () -> setNative.invoke(null, 0L));
        assertTrue(e.getCause() instanceof IllegalArgumentException, e.getCause().toString());
        assertTrue(e.getCause().getMessage().endsWith(ERRNO_EINVAL), e.getCause().getMessage());
    }

    private static void assertEinval(IOException e) {
        assertTrue(e.getMessage().contains(ERRNO_EINVAL), e.getMessage());
    }

    /** What libibverbs enumerates: the uverbs devices under /sys/class/infiniband_verbs. */
    static boolean hasVerbsDevice() {
        String[] entries = new File(VERBS_CLASS).list((dir, name) -> name.startsWith("uverbs"));
        return entries != null && entries.length > 0;
    }
}
