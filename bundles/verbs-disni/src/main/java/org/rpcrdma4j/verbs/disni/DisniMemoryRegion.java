package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.SVCDeregMr;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.VerbsException;

/** A registered region (DiSNI IbvMr); the buffer stays referenced until deregistration. */
final class DisniMemoryRegion implements MemoryRegion {
    private final DisniProtectionDomain pd;
    private final IbvMr mr;
    private final int access;
    private ByteBuffer buffer;

    DisniMemoryRegion(DisniProtectionDomain pd, ByteBuffer buffer, int access, IbvMr mr) {
        this.pd = pd;
        this.buffer = buffer;
        this.access = access;
        this.mr = mr;
    }

    @Override
    public DisniProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public synchronized ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public long address() {
        return mr.getAddr();
    }

    @Override
    public int length() {
        return mr.getLength();
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public int lkey() {
        return mr.getLkey();
    }

    @Override
    public int rkey() {
        return mr.getRkey();
    }

    @Override
    public synchronized void deregister() throws VerbsException {
        if (buffer == null) {
            return;
        }
        SVCDeregMr call = null;
        try {
            call = mr.deregMr().execute();
        } catch (IOException e) {
            throw DisniErrors.toVerbs("ibv_dereg_mr", e);
        } finally {
            if (call != null) {
                call.free();
            }
        }
        buffer = null;
        pd.release();
    }

    @Override
    public String toString() {
        return "DisniMemoryRegion[0x" + Long.toHexString(address()) + "+" + length() + " lkey=0x" + Integer.toHexString(lkey()) + "]";
    }
}
