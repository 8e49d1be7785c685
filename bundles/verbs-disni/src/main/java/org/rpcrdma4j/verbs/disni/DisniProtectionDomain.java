package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.SVCRegMr;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.FastRegistrationRegion;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A protection domain (DiSNI IbvPd). Counts its regions and queue pairs so that closing it early
 * fails with EBUSY, as ibv_dealloc_pd does, instead of leaving DiSNI's objects half-closed.
 */
final class DisniProtectionDomain implements ProtectionDomain {
    private final DisniDevice device;
    private final IbvPd pd;
    private int users;
    private boolean closed;

    DisniProtectionDomain(DisniDevice device, IbvPd pd) {
        this.device = device;
        this.pd = pd;
    }

    IbvPd pd() {
        return pd;
    }

    @Override
    public DisniDevice device() {
        return device;
    }

    /**
     * Registers the buffer with DiSNI's stateful registration call (one per registration: the
     * call is built for one buffer), freed right after.
     */
    @Override
    public MemoryRegion registerMemory(ByteBuffer buffer, int access) throws VerbsException {
        if (!buffer.isDirect() || buffer.capacity() == 0) {
            throw new VerbsException("registration needs a non-empty direct buffer", Errno.EINVAL);
        }
        if (!Access.isValid(access)) {
            throw new VerbsException("invalid access flags " + Access.toString(access), Errno.EINVAL);
        }
        acquire();
        SVCRegMr call = null;
        try {
            call = pd.regMr(buffer, access).execute();
            IbvMr mr = call.getMr();
            return new DisniMemoryRegion(this, buffer, access, mr);
        } catch (IOException e) {
            release();
            throw DisniErrors.toVerbs("ibv_reg_mr of " + buffer.capacity() + " bytes", e);
        } finally {
            if (call != null) {
                call.free();
            }
        }
    }

    @Override
    public FastRegistrationRegion allocateFastRegistrationRegion(int maxLength) throws VerbsException {
        throw new VerbsException("fast registration: user-space verbs have no REG_MR work request", Errno.EOPNOTSUPP);
    }

    @Override
    public synchronized void close() throws VerbsException {
        if (closed) {
            return;
        }
        if (users > 0) {
            throw new VerbsException("protection domain still has " + users + " regions or queue pairs", Errno.EBUSY);
        }
        closed = true;
        try {
            int ret = pd.deallocPd();
            if (ret != 0) {
                throw new VerbsException("ibv_dealloc_pd", -ret);
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Exception e) {
            throw new VerbsException("ibv_dealloc_pd: " + e.getMessage(), DisniErrors.EIO, e);
        }
    }

    /** Counts a region or queue pair of this domain. */
    synchronized void acquire() throws VerbsException {
        if (closed) {
            throw new VerbsException("protection domain is closed", Errno.EBADF);
        }
        users++;
    }

    /** Uncounts a region or queue pair of this domain. */
    synchronized void release() {
        users--;
    }
}
