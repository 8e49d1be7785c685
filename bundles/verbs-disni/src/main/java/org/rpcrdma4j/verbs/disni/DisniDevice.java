package org.rpcrdma4j.verbs.disni;

import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_CAP_FLAGS;
import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_FIELDS;
import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_LINK_LAYER;
import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_MAX_CQE;
import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_MAX_QP_INIT_RD_ATOM;
import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_MAX_QP_RD_ATOM;
import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_MAX_QP_WR;
import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_MAX_SGE;
import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_MAX_SGE_RD;
import static org.rpcrdma4j.disni.ext.DisniExtensions.DEVICE_TRANSPORT_TYPE;
import static org.rpcrdma4j.disni.ext.DisniExtensions.LINK_LAYER_ETHERNET;
import static org.rpcrdma4j.disni.ext.DisniExtensions.TRANSPORT_IWARP;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.impl.NatObject;
import java.io.IOException;
import java.util.List;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.DevicePort;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A device context (ibv_context) librdmacm opened, with the capabilities read once.
 *
 * <p>Owned by the provider; the context stays open as long as an id of librdmacm uses it (the
 * provider's probe id, or a connection's).
 */
final class DisniDevice implements VerbsDevice {
    /** Most SGEs per work request of a queue pair libdisni creates (DISNI_QP_MAX_SGE). */
    static final int LIBDISNI_MAX_SGE = 16;
    /** device_cap_flags IBV_DEVICE_MEM_MGT_EXTENSIONS: the device posts (and honours) Send With Invalidate. */
    static final int IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;

    /** Most asynchronous events one {@link #takeAsyncEvents()} takes. */
    static final int ASYNC_EVENTS_PER_CALL = 64;
    private static final int EAGAIN = 11;

    private final IbvContext context;
    private final String name;
    private final DeviceCapabilities capabilities;
    private final AsyncEventRouter asyncEvents = new AsyncEventRouter();
    /** 0 before the async fd is made non-blocking, 1 after, -1 once it failed (guarded by asyncEvents). */
    private int asyncState;
    /** The context's async_fd once asked for, else -1 (guarded by asyncEvents). */
    private int asyncDescriptor = -1;

    DisniDevice(IbvContext context, int maxInlineData) throws VerbsException {
        this.context = context;
        long handle = ((NatObject) context).getObjId();
        int[] limits = new int[DEVICE_FIELDS];
        try {
            this.name = DisniExtensions.deviceName(handle);
            DisniExtensions.queryDevice(handle, limits);
        } catch (IOException e) {
            throw DisniErrors.toVerbs("ibv_query_device", e);
        }
        this.capabilities = capabilitiesOf(limits, maxInlineData);
    }

    /**
     * Maps ibv_query_device's limits: SGEs capped at what libdisni gives a queue pair, READ SGEs
     * at the send SGEs; no fast registration (user-space verbs have no REG_MR work request);
     * remote invalidation (posting SEND_WITH_INV) where the device has the memory management
     * extensions, as Linux's svcrdma decides (rxe has them).
     */
    static DeviceCapabilities capabilitiesOf(int[] limits, int maxInlineData) {
        TransportType transport = limits[DEVICE_TRANSPORT_TYPE] == TRANSPORT_IWARP ? TransportType.IWARP
                : limits[DEVICE_LINK_LAYER] == LINK_LAYER_ETHERNET ? TransportType.ROCE : TransportType.INFINIBAND;
        int sge = Math.max(1, Math.min(limits[DEVICE_MAX_SGE], LIBDISNI_MAX_SGE));
        int readSge = Math.max(1, Math.min(limits[DEVICE_MAX_SGE_RD], sge));
        return new DeviceCapabilities(transport, sge, sge, readSge, maxInlineData,
                Math.max(1, limits[DEVICE_MAX_QP_WR]), Math.max(1, limits[DEVICE_MAX_CQE]),
                Math.max(1, limits[DEVICE_MAX_QP_INIT_RD_ATOM]), Math.max(1, limits[DEVICE_MAX_QP_RD_ATOM]),
                false, (limits[DEVICE_CAP_FLAGS] & IBV_DEVICE_MEM_MGT_EXTENSIONS) != 0, 0);
    }

    IbvContext context() {
        return context;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceCapabilities capabilities() {
        return capabilities;
    }

    /** The ports as sysfs shows them now ({@link SysfsPorts}): state and the addresses of their interfaces. */
    @Override
    public List<DevicePort> ports() {
        return SysfsPorts.of(name);
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() throws VerbsException {
        try {
            IbvPd pd = context.allocPd();
            if (pd == null) {
                throw new VerbsException("ibv_alloc_pd on " + name + " returned no domain", Errno.ENOMEM);
            }
            return new DisniProtectionDomain(this, pd);
        } catch (IOException e) {
            throw DisniErrors.toVerbs("ibv_alloc_pd on " + name, e);
        }
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) throws VerbsException {
        if (capacity < 1 || capacity > capabilities.maxCompletionQueueEntries()) {
            throw new VerbsException("completion queue capacity must be within 1.." + capabilities.maxCompletionQueueEntries() + ": "
                    + capacity, Errno.EINVAL);
        }
        return DisniCompletionQueue.create(this, capacity);
    }

    /** The router of this device's asynchronous events: connections register their queue pairs. */
    AsyncEventRouter asyncEvents() {
        return asyncEvents;
    }

    /**
     * Takes the device's pending asynchronous events without waiting (ibv_get_async_event on its
     * non-blocking async fd, each acknowledged at once) and routes them
     * ({@link AsyncEventRouter}). Called by every connection manager's event pump, so whichever
     * manager runs first takes them; serialised per device. Does nothing while no queue pair of
     * ours is on the device; stops reading a device whose async fd failed (it went away: the
     * connection manager reports DEVICE_REMOVAL).
     */
    void takeAsyncEvents() {
        if (asyncEvents.isEmpty()) {
            return;
        }
        long handle = ((NatObject) context).getObjId();
        synchronized (asyncEvents) {
            if (asyncState == 0) {
                try {
                    DisniExtensions.prepareAsyncEvents(handle);
                    asyncState = 1;
                } catch (IOException e) {
                    asyncState = -1;
                }
            }
            for (int i = 0; i < ASYNC_EVENTS_PER_CALL && asyncState > 0; i++) {
                long event = DisniExtensions.takeAsyncEvent(handle);
                if (event < 0) {
                    if (event != -EAGAIN) {
                        asyncState = -1;
                    }
                    return;
                }
                asyncEvents.route((int) (event >>> 32), (int) event);
            }
        }
    }

    /**
     * @return the device's asynchronous event descriptor while queue pairs of ours are on it and
     *         its events can be read ({@link #takeAsyncEvents()} then consumes what makes it
     *         readable), else -1: a descriptor nobody reads would wake a waiter again and again
     */
    int asyncEventDescriptorToWatch() {
        if (asyncEvents.isEmpty()) {
            return -1;
        }
        synchronized (asyncEvents) {
            if (asyncState < 0) {
                return -1;
            }
            if (asyncDescriptor < 0) {
                asyncDescriptor = DisniExtensions.asyncEventDescriptor(((NatObject) context).getObjId());
            }
            return asyncDescriptor;
        }
    }

    @Override
    public String toString() {
        return "DisniDevice[" + name + " " + capabilities.transportType() + "]";
    }
}
