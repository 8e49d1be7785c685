package org.rpcrdma4j.verbs.loopback;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.FastRegistrationRegion;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A loopback protection domain: counts the regions and queue pairs created in it so that closing
 * it early fails with EBUSY, as ibv_dealloc_pd does.
 */
final class LoopbackProtectionDomain implements ProtectionDomain {
    private final LoopbackDevice device;
    private final LoopbackFabric fabric;
    private int users;
    private boolean closed;

    LoopbackProtectionDomain(LoopbackDevice device) {
        this.device = device;
        this.fabric = device.fabric;
    }

    @Override
    public VerbsDevice device() {
        return device;
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer buffer, int access) throws VerbsException {
        checkRegistration(buffer, access);
        fabric.lock.lock();
        try {
            checkOpen();
            LoopbackMemoryRegion region = new LoopbackMemoryRegion(fabric, this, buffer, access);
            users++;
            return region;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public FastRegistrationRegion allocateFastRegistrationRegion(int maxLength) throws VerbsException {
        if (!device.capabilities().fastRegistration()) {
            throw new VerbsException("fast registration is not supported by " + device.name(), Errno.EOPNOTSUPP);
        }
        if (maxLength <= 0 || maxLength > device.capabilities().maxFastRegistrationLength()) {
            throw new VerbsException("fast registration length " + maxLength + " outside 1.."
                    + device.capabilities().maxFastRegistrationLength(), Errno.EINVAL);
        }
        fabric.lock.lock();
        try {
            checkOpen();
            LoopbackFastRegistrationRegion region = new LoopbackFastRegistrationRegion(fabric, this, maxLength);
            users++;
            return region;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void close() throws VerbsException {
        fabric.lock.lock();
        try {
            if (closed) {
                return;
            }
            if (users > 0) {
                throw new VerbsException("protection domain still has " + users + " regions or queue pairs", Errno.EBUSY);
            }
            closed = true;
        } finally {
            fabric.lock.unlock();
        }
    }

    /** Under the fabric lock: a region or queue pair now uses this domain. */
    void acquire() throws VerbsException {
        checkOpen();
        users++;
    }

    /** Under the fabric lock: a region or queue pair of this domain is gone. */
    void release() {
        users--;
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("protection domain is closed", Errno.EBADF);
        }
    }

    private static void checkRegistration(ByteBuffer buffer, int access) throws VerbsException {
        if (buffer == null || !buffer.isDirect() || buffer.capacity() == 0) {
            throw new VerbsException("only a non-empty direct buffer can be registered", Errno.EINVAL);
        }
        if (!Access.isValid(access)) {
            throw new VerbsException("invalid access flags " + Access.toString(access), Errno.EINVAL);
        }
        if (buffer.isReadOnly() && (access & (Access.LOCAL_WRITE | Access.REMOTE_WRITE)) != 0) {
            throw new VerbsException("a read-only buffer cannot be registered for writing", Errno.EACCES);
        }
    }
}
