package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The provider's device-list and connection-manager paths through our libdisni and DiSNI's own
 * code, on this machine whatever it has: without a device they fail cleanly (an empty list; the
 * event channel refused with ENODEV, as librdmacm does when it finds no device), with one they
 * work. Skipped only when the build could not produce libdisni (no rdma-core headers).
 */
@ExtendWith(RequiresLibdisni.class)
class DisniWithoutDeviceTest {
    @Test
    void devicesAreThoseTheKernelHasWithAnIpv4Address() throws VerbsException {
        try (DisniProvider provider = new DisniProvider()) {
            List<VerbsDevice> devices = provider.devices();
            if (DisniTestSupport.hasVerbsDevice()) {
                for (VerbsDevice device : devices) {
                    assertFalse(device.capabilities().fastRegistration(), device + ": user-space verbs have no REG_MR");
                    assertTrue(provider.addressOf(device) != null, device + " was found through an address");
                    assertSame(device, provider.deviceAt(provider.addressOf(device)), device + " carries its address");
                }
            } else {
                assertEquals(List.of(), devices);
            }
            assertNull(provider.deviceAt(InetAddress.getLoopbackAddress()), "the loopback interface carries no RDMA device");
        }
    }

    @Test
    void connectionManagerNeedsADevice() throws VerbsException {
        try (DisniProvider provider = new DisniProvider()) {
            if (DisniTestSupport.hasVerbsDevice()) {
                provider.openConnectionManager().close();
            } else {
                VerbsException e = assertThrows(VerbsException.class, provider::openConnectionManager);
                assertEquals(DisniErrors.ENODEV, e.errno(), e.getMessage());
                assertTrue(e.getMessage().contains("rdma_create_event_channel"), e.getMessage());
            }
        }
    }

    @Test
    void aClosedProviderRefusesWithEbadf() {
        DisniProvider provider = new DisniProvider();
        provider.close();
        provider.close(); // twice: nothing
        assertEquals(Errno.EBADF, assertThrows(VerbsException.class, provider::devices).errno());
        assertEquals(Errno.EBADF, assertThrows(VerbsException.class, provider::openConnectionManager).errno());
        assertNull(provider.addressOf(new StubDevice("none")));
    }

    /** Only a name: addressOf looks devices up by name. */
    private record StubDevice(String name) implements VerbsDevice {
        @Override
        public org.rpcrdma4j.verbs.DeviceCapabilities capabilities() {
            throw new UnsupportedOperationException();
        }

        @Override
        public org.rpcrdma4j.verbs.ProtectionDomain allocateProtectionDomain() {
            throw new UnsupportedOperationException();
        }

        @Override
        public org.rpcrdma4j.verbs.CompletionQueue createCompletionQueue(int capacity) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void connectionManagerRefusesIpv6AndClosesOnce() throws VerbsException {
        assumeTrue(DisniTestSupport.hasVerbsDevice(), DisniTestSupport.NO_DEVICE);
        try (DisniProvider provider = new DisniProvider()) {
            ConnectionManager manager = provider.openConnectionManager();
            VerbsException e = assertThrows(VerbsException.class,
                    () -> manager.listen(new java.net.InetSocketAddress(java.net.InetAddress.getByName("::1"), 0), 1));
            assertEquals(Errno.EINVAL, e.errno());
            manager.close();
            manager.close();
            assertEquals(Errno.EBADF, assertThrows(VerbsException.class,
                    () -> manager.listen(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 1)).errno());
        }
    }
}
