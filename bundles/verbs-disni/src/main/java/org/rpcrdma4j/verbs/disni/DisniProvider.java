package org.rpcrdma4j.verbs.disni;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceProvider;
import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatObject;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * The DiSNI verbs provider: devices, protection domains, memory regions, completion queues, queue
 * pairs and the connection manager of the verbs contract over DiSNI 2.1.
 *
 * <p>Devices: librdmacm hands out a device context only to an id bound to one of the device's
 * addresses, so {@link #devices()} binds a probe id to each local IPv4 address (DiSNI 2.1 speaks
 * IPv4 only) and keeps one id per device found, which holds the context open until
 * {@link #close()}. A device whose interface has no IPv4 address is not found.
 *
 * <p>Ownership: the creator (ServiceLoader user, the DS component) owns the provider and closes
 * it after every resource created through it is released. Threading: safe from any thread.
 */
@ServiceProvider(value = VerbsProvider.class, resolution = Resolution.OPTIONAL)
public final class DisniProvider implements VerbsProvider, AutoCloseable {
    /** The provider's name. */
    public static final String NAME = "disni";
    /** Default most bytes a SEND carries inline: verbs offer no query for it; every current device takes 64. */
    public static final int DEFAULT_MAX_INLINE_DATA = 64;
    /**
     * Most bytes of inline data a configuration may ask for: more than any device offers (rxe 512,
     * siw and ConnectX a few hundred); a device refuses a queue pair asking beyond its own limit.
     */
    public static final int MAX_MAX_INLINE_DATA = 1024;

    private final int maxInlineData;
    private final Map<String, DisniDevice> devicesByName = new ConcurrentHashMap<>();
    private final Map<Long, DisniDevice> devicesByContext = new ConcurrentHashMap<>();
    private final Map<String, InetAddress> deviceAddresses = new ConcurrentHashMap<>();
    /** Every probed local address that belongs to a device, with that device's name. */
    private final Map<InetAddress, String> devicesByAddress = new ConcurrentHashMap<>();
    private final List<RdmaCmId> anchors = new ArrayList<>();
    private static volatile String directBufferAccess;

    private RdmaEventChannel probeChannel;
    private boolean closed;

    /** Creates a provider with {@link #DEFAULT_MAX_INLINE_DATA} (ServiceLoader). */
    public DisniProvider() {
        this(DEFAULT_MAX_INLINE_DATA);
    }

    /**
     * Creates a provider.
     *
     * @param maxInlineData the inline limit to report in the capabilities, 0 to {@value #MAX_MAX_INLINE_DATA}
     * @throws IllegalArgumentException when it is outside that range, naming the setting
     */
    public DisniProvider(int maxInlineData) {
        this.maxInlineData = checkedMaxInlineData(maxInlineData);
    }

    /**
     * @param maxInlineData a configured inline limit
     * @return it, when within 0 to {@value #MAX_MAX_INLINE_DATA}
     * @throws IllegalArgumentException naming the setting, the value and the range otherwise
     */
    static int checkedMaxInlineData(int maxInlineData) {
        if (maxInlineData < 0 || maxInlineData > MAX_MAX_INLINE_DATA) {
            throw new IllegalArgumentException("maxInlineData must be 0.." + MAX_MAX_INLINE_DATA + " bytes, was "
                    + maxInlineData);
        }
        return maxInlineData;
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Lists the devices reachable through a local IPv4 address.
     *
     * @return the devices; empty when libibverbs lists none (or the kernel has no verbs support)
     * @throws VerbsException when libdisni cannot be loaded or a device refuses a query
     */
    @Override
    public synchronized List<VerbsDevice> devices() throws VerbsException {
        checkOpen();
        checkDirectBufferAccess();
        String[] names = deviceNames();
        if (names.length > devicesByName.size()) {
            discover();
        }
        return Collections.unmodifiableList(new ArrayList<>(devicesByName.values()));
    }

    @Override
    public ConnectionManager openConnectionManager() throws VerbsException {
        synchronized (this) {
            checkOpen();
        }
        checkDirectBufferAccess();
        try {
            RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
            try {
                return new DisniConnectionManager(this, channel);
            } catch (IOException | RuntimeException | LinkageError e) {
                try {
                    channel.destroyEventChannel();
                } catch (IOException ignored) {
                    // the manager failed either way
                }
                throw e;
            }
        } catch (IOException e) {
            throw DisniErrors.toVerbs("rdma_create_event_channel", e);
        } catch (LinkageError e) {
            throw unloadable(e);
        }
    }

    /**
     * Opens a completion channel: an eventfd now, one ibv_comp_channel per device once a queue of
     * that device is created on it (see {@link DisniCompletionChannel}). Needs no device.
     *
     * @throws VerbsException EBADF after close; ENODEV when libdisni cannot be loaded; the errno of
     *         eventfd(2)
     */
    @Override
    public CompletionChannel openCompletionChannel() throws VerbsException {
        synchronized (this) {
            checkOpen();
        }
        checkDirectBufferAccess();
        try {
            return DisniCompletionChannel.open();
        } catch (LinkageError e) {
            throw unloadable(e);
        }
    }

    /**
     * The device of a context handed out by librdmacm (e.g. the context of a connect request's id).
     *
     * @param context the DiSNI context
     * @return its device, created on first sight
     * @throws VerbsException when the device cannot be queried
     */
    DisniDevice deviceOf(IbvContext context) throws VerbsException {
        long handle = ((NatObject) context).getObjId();
        DisniDevice known = devicesByContext.get(handle);
        if (known != null) {
            return known;
        }
        synchronized (this) {
            known = devicesByContext.get(handle);
            if (known == null) {
                known = new DisniDevice(context, maxInlineData);
                devicesByContext.put(handle, known);
                devicesByName.putIfAbsent(known.name(), known);
            }
            return known;
        }
    }

    /**
     * Adds the asynchronous event descriptors worth waiting on (devices that carry queue pairs of
     * ours) to {@code descriptors} from {@code from}, as room allows.
     *
     * @return the new count
     */
    int addAsyncEventDescriptors(int[] descriptors, int from) {
        int count = from;
        for (DisniDevice device : devicesByContext.values()) {
            if (count == descriptors.length) {
                break;
            }
            int fd = device.asyncEventDescriptorToWatch();
            if (fd >= 0) {
                descriptors[count++] = fd;
            }
        }
        return count;
    }

    /** Takes every known device's pending asynchronous events (see {@link DisniDevice#takeAsyncEvents()}). */
    void takeAsyncEvents() {
        for (DisniDevice device : devicesByContext.values()) {
            device.takeAsyncEvents();
        }
    }

    /**
     * @param device a device {@link #devices()} listed
     * @return the local IPv4 address through which it was found, or null
     */
    public InetAddress addressOf(VerbsDevice device) {
        return deviceAddresses.get(device.name());
    }

    /**
     * @param address a local IPv4 address
     * @return the device whose interface carries it (an interface may carry several addresses, and
     *         {@link #addressOf} names only one), or null when it belongs to none {@link #devices()}
     *         found
     */
    public VerbsDevice deviceAt(InetAddress address) {
        String name = devicesByAddress.get(address);
        return name == null ? null : devicesByName.get(name);
    }

    /** Destroys the probe ids that hold the device contexts, and the probe channel. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (RdmaCmId id : anchors) {
            destroyQuietly(id);
        }
        anchors.clear();
        if (probeChannel != null) {
            try {
                probeChannel.destroyEventChannel();
            } catch (IOException ignored) {
                // closing: the channel is gone either way
            }
            probeChannel = null;
        }
        devicesByName.clear();
        devicesByContext.clear();
        deviceAddresses.clear();
        devicesByAddress.clear();
    }

    /**
     * DiSNI reads direct buffer addresses through sun.nio.ch.DirectBuffer: check once that it can,
     * so that a missing launch setting is reported with its fix instead of failing deep inside a
     * later call.
     *
     * @throws VerbsException EPERM naming the settings when sun.nio.ch is not reachable, ENODEV
     *         when libdisni cannot be loaded
     */
    static void checkDirectBufferAccess() throws VerbsException {
        String reason = directBufferAccess;
        if (reason == null) {
            try {
                MemoryUtils.getAddress(ByteBuffer.allocateDirect(1));
                reason = "";
            } catch (LinkageError e) {
                reason = e.toString();
            }
            directBufferAccess = reason;
        }
        if (!reason.isEmpty()) {
            throw new VerbsException("DiSNI cannot read direct buffer addresses (" + reason + "): export sun.nio.ch from the "
                    + "system bundle (org.osgi.framework.system.packages.extra) and run the JVM with "
                    + "--add-exports java.base/sun.nio.ch=ALL-UNNAMED (class path, OSGi) or =com.ibm.disni (module path)", Errno.EPERM);
        }
    }

    private static String[] deviceNames() throws VerbsException {
        try {
            return DisniExtensions.deviceNames();
        } catch (IOException e) {
            if (DisniErrors.errnoOf(e) == DisniErrors.ENOSYS) {
                return new String[0]; // no verbs support in the kernel: no devices
            }
            throw DisniErrors.toVerbs("ibv_get_device_list", e);
        } catch (LinkageError e) {
            throw unloadable(e);
        }
    }

    private void discover() throws VerbsException {
        try {
            if (probeChannel == null) {
                probeChannel = RdmaEventChannel.createEventChannel();
            }
            for (InetAddress address : localIpv4Addresses()) {
                probe(address);
            }
        } catch (IOException e) {
            throw DisniErrors.toVerbs("probing devices", e);
        }
    }

    private void probe(InetAddress address) throws IOException, VerbsException {
        RdmaCmId id = probeChannel.createId(RdmaCm.RDMA_PS_TCP);
        boolean keep = false;
        try {
            id.bindAddr(new InetSocketAddress(address, 0));
            IbvContext context = id.getVerbs();
            if (context != null) {
                boolean known = devicesByContext.containsKey(((NatObject) context).getObjId());
                String name = deviceOf(context).name();
                devicesByAddress.put(address, name);
                if (!known) {
                    deviceAddresses.putIfAbsent(name, address);
                    anchors.add(id);
                    keep = true;
                }
            }
        } catch (IOException notRdma) {
            // the address belongs to no RDMA device (or vanished): not a device
        } finally {
            if (!keep) {
                destroyQuietly(id);
            }
        }
    }

    private static List<InetAddress> localIpv4Addresses() throws VerbsException {
        List<InetAddress> addresses = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (nic.isUp() && !nic.isLoopback()) {
                    for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                        if (a instanceof Inet4Address) {
                            addresses.add(a);
                        }
                    }
                }
            }
        } catch (SocketException e) {
            throw new VerbsException("listing network interfaces: " + e.getMessage(), DisniErrors.EIO, e);
        }
        return addresses;
    }

    static void destroyQuietly(RdmaCmId id) {
        try {
            id.destroyId();
        } catch (IOException ignored) {
            // already destroyed
        }
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("provider is closed", Errno.EBADF);
        }
    }

    static VerbsException unloadable(LinkageError e) {
        return new VerbsException("libdisni not loadable (" + e + "); install rpcrdma4j-disni-native and run with "
                + "--add-exports java.base/sun.nio.ch=ALL-UNNAMED", DisniErrors.ENODEV, e);
    }
}
