package org.rpcrdma4j.transport.conformance;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.FastRegistrationRegion;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * RecordingProtectionDomain - a protection domain for sink pool tests that counts memory
 * registrations, remembers every one that grants remote access (what a peer could reach), and
 * can refuse registrations as a device out of resources would (ENOMEM).
 */
public final class RecordingProtectionDomain implements ProtectionDomain {
    private final ProtectionDomain delegate;
    private final List<String> remoteAccess = new ArrayList<>();
    private int registrations;
    private boolean refusing;

    /** @param delegate the domain that does the registrations */
    public RecordingProtectionDomain(ProtectionDomain delegate) {
        this.delegate = delegate;
    }

    /** @return each registration so far that granted remote read or write: access and length */
    public List<String> remoteAccess() {
        return remoteAccess;
    }

    /** @return the registrations made so far (refused ones not counted) */
    public int registrations() {
        return registrations;
    }

    /** @param refusing whether the next registrations are refused */
    public void refuse(boolean refusing) {
        this.refusing = refusing;
    }

    @Override
    public VerbsDevice device() {
        return delegate.device();
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer buffer, int access) throws VerbsException {
        if (refusing) {
            throw new VerbsException("registration refused by the test", 12);
        }
        registrations++;
        if ((access & (Access.REMOTE_WRITE | Access.REMOTE_READ)) != 0) {
            remoteAccess.add(Access.toString(access) + " over " + buffer.capacity() + " bytes");
        }
        return delegate.registerMemory(buffer, access);
    }

    @Override
    public FastRegistrationRegion allocateFastRegistrationRegion(int maxLength) throws VerbsException {
        return delegate.allocateFastRegistrationRegion(maxLength);
    }

    @Override
    public void close() throws VerbsException {
        delegate.close();
    }
}
