package org.rpcrdma4j.transport.internal;

import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.common.UsageTally;
import org.rpcrdma4j.transport.internal.connection.DeviceResources;
import org.rpcrdma4j.transport.internal.connection.QueuePairSizing;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * LoopDevices - one completion loop's resources per device (protection domain, READ sinks, reply
 * staging), made when the loop's first connection on a device arrives and kept until the loop
 * closes. Each loop has its own pools of the configured size (per loop and device), shared by its
 * connections through per-connection shares (PoolShare).
 *
 * <p>Threading: the loop's leader only (or while the loop is stopped).
 */
final class LoopDevices {
    private final TransportConfig config;
    private final List<DeviceResources> devices = new ArrayList<>();

    LoopDevices(TransportConfig config) {
        this.config = config;
    }

    /** @return the loop's resources on {@code device}, made now if it has none yet */
    DeviceResources deviceFor(VerbsDevice device) throws VerbsException {
        for (int i = 0; i < devices.size(); i++) {
            if (devices.get(i).device() == device) {
                return devices.get(i);
            }
        }
        boolean auto = config.readSinkCount() == 0;
        SinkPoolParameters parameters = new SinkPoolParameters(auto ? 1 : config.readSinkCount(), config.readSinkLength(),
                config.sinkPageSize(), QueuePairSizing.readSgeLimit(device.capabilities()));
        DeviceResources resources = new DeviceResources(device, device.allocateProtectionDomain(), parameters, auto,
                config.replyStagingBytes());
        devices.add(resources);
        return resources;
    }

    /** retireMissing() - the registered strategies changed: pools of a strategy no longer registered go. */
    void retireMissing(List<RegistrationStrategy> registered) {
        for (int i = 0; i < devices.size(); i++) {
            devices.get(i).retireMissing(registered);
        }
    }

    void closeIdlePools() {
        for (int i = 0; i < devices.size(); i++) {
            devices.get(i).closeIdlePools();
        }
    }

    /** addUsage() - the devices' part of the loop's usage. */
    void addUsage(UsageTally usage) {
        for (DeviceResources d : devices) {
            usage.outstandingSinks += d.outstandingSinks();
            usage.sinkRegistrations += d.liveRegistrations();
            usage.registeredBytes += d.registeredBytes();
            usage.replyStagingBytes += d.replyStaging().allocated();
        }
    }

    /**
     * close() - release every device's resources, as the loop closes.
     *
     * @return true when all were released (and forgotten); false: some are still in use, try again
     */
    boolean close() {
        boolean all = true;
        for (DeviceResources d : devices) {
            all &= d.close();
        }
        if (!all) {
            return false;
        }
        devices.clear();
        return true;
    }
}
