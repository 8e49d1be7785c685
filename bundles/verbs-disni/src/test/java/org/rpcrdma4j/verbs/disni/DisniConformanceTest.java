package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.rpcrdma4j.verbs.conformance.ConformanceFixture;
import org.rpcrdma4j.verbs.conformance.VerbsProviderConformanceTest;

/**
 * The DiSNI provider against the provider conformance suite, on a real or soft RDMA device.
 *
 * <p>Runs where an RDMA device is up with an IPv4 address (the soft-RDMA lab guest: rxe on a dummy
 * interface); elsewhere every test is skipped, naming why: libdisni not loadable, or no device.
 * The listen address is the device's address the provider found, or the system property
 * {@code rpcrdma4j.disni.address} when set; the device under test is the one that address belongs
 * to (the lab guest has rxe0 and siw0: its transport, RoCE or iWARP, decides what the suite expects). The class-level condition skips before the suite's
 * {@code @BeforeEach}; the assumptions in {@link #createFixture()} repeat it for any other runner.
 *
 * <p>Beyond the provider contract, one end-to-end check of our own stack on the device: a
 * backward-direction (RFC 8167) round trip between our Java client and our server transport
 * ({@link BackchannelRoundTrip}); skipped like the rest where no device is up.
 */
@ExtendWith(RequiresRdmaDevice.class)
class DisniConformanceTest extends VerbsProviderConformanceTest {
    @Override
    protected ConformanceFixture createFixture() throws VerbsException {
        String unloadable = DisniTestSupport.whyLibdisniIsNotLoadable();
        assumeTrue(unloadable == null, () -> "libdisni not loadable: " + unloadable);
        assumeTrue(DisniTestSupport.hasVerbsDevice(), DisniTestSupport.NO_DEVICE);
        DisniProvider provider = new DisniProvider();
        List<VerbsDevice> devices = provider.devices();
        String configured = System.getProperty("rpcrdma4j.disni.address");
        InetAddress address;
        try {
            address = configured != null ? InetAddress.getByName(configured) : devices.isEmpty() ? null : provider.addressOf(devices.get(0));
        } catch (java.net.UnknownHostException e) {
            provider.close();
            throw new IllegalArgumentException("rpcrdma4j.disni.address: " + configured, e);
        }
        if (address == null) {
            provider.close();
        }
        assumeTrue(address != null, "no RDMA device with an IPv4 address (DiSNI 2.1 speaks IPv4 only)");
        if (devices.isEmpty()) {
            provider.close();
        }
        assumeTrue(!devices.isEmpty(), "DiSNI lists no device");
        // The device whose interface carries the address (the lab's interfaces carry two each: the
        // fabric's address and the fault address; comparing with addressOf() picked rxe0 for siw's
        // address in run 1749, so the suite expected RoCE on the iWARP device).
        VerbsDevice device = provider.deviceAt(address);
        if (device == null) {
            provider.close();
        }
        assumeTrue(device != null, () -> "no RDMA device carries " + address + " (devices " + devices + ")");
        return new Fixture(provider, device, new InetSocketAddress(address, 0));
    }

    @Test
    void backwardDirectionRoundTripBetweenOurClientAndOurServer() throws Exception {
        BackchannelRoundTrip.assertRoundTrip(fixture.provider(), fixture.listenAddress());
    }

    private static final class Fixture implements ConformanceFixture {
        private final DisniProvider provider;
        private final VerbsDevice device;
        private final InetSocketAddress listenAddress;

        Fixture(DisniProvider provider, VerbsDevice device, InetSocketAddress listenAddress) {
            this.provider = provider;
            this.device = device;
            this.listenAddress = listenAddress;
        }

        @Override
        public VerbsDevice device() {
            return device;
        }

        @Override
        public VerbsProvider provider() {
            return provider;
        }

        @Override
        public InetSocketAddress listenAddress() {
            return listenAddress;
        }

        @Override
        public int progress() {
            return 0; // hardware (or the kernel's soft device) makes progress by itself
        }

        @Override
        public void close() {
            provider.close();
        }
    }
}
