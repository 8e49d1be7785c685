package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.CompletionQueue;
import java.util.List;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.DevicePort;
import org.rpcrdma4j.verbs.PortState;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/** The single device of a loopback fabric, with the capabilities the fabric was built with. */
final class LoopbackDevice implements VerbsDevice {
    final LoopbackFabric fabric;
    private final String name;
    private final DeviceCapabilities capabilities;

    LoopbackDevice(LoopbackFabric fabric, String name, DeviceCapabilities capabilities) {
        this.fabric = fabric;
        this.name = name;
        this.capabilities = capabilities;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceCapabilities capabilities() {
        return capabilities;
    }

    /**
     * One port, active while the fabric is open (down after it closed); no IP address: the fabric
     * is in-JVM and reaches every address a listener of the same fabric is bound to.
     */
    @Override
    public List<DevicePort> ports() {
        return List.of(new DevicePort(1, fabric.isOpen() ? PortState.ACTIVE : PortState.DOWN, List.of()));
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() throws VerbsException {
        fabric.checkOpen();
        return new LoopbackProtectionDomain(this);
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) throws VerbsException {
        checkCapacity(capacity);
        fabric.lock.lock();
        try {
            fabric.checkOpen();
            LoopbackCompletionQueue queue = new LoopbackCompletionQueue(this, capacity);
            fabric.addCompletionQueue(queue);
            return queue;
        } finally {
            fabric.lock.unlock();
        }
    }

    void checkCapacity(int capacity) throws VerbsException {
        if (capacity < 1 || capacity > capabilities.maxCompletionQueueEntries()) {
            throw new VerbsException("completion queue capacity " + capacity + " outside 1.." + capabilities.maxCompletionQueueEntries(), Errno.EINVAL);
        }
    }

    @Override
    public String toString() {
        return "LoopbackDevice[" + name + "]";
    }
}
