package org.rpcrdma4j.transport.oncrpc;

import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;

/**
 * CallXdr - the {@link Xdr} a call received over RDMA is decoded from and its reply encoded into.
 *
 * <p>oncrpc4j decodes a call from its {@code Xdr} and then encodes the reply into the same one
 * ({@code RpcCall.acceptedReply}: {@code beginEncoding()} on the call's stream). Here the call's
 * buffer is the receive buffer or the READ sinks, read in place and read-only (a read chunk's
 * XDR round-up is a shared zero buffer): so encoding starts in a buffer of its own, taken when
 * the reply begins, and the call's memory is never written.
 */
final class CallXdr extends Xdr {
    /** @param call the call message, read in place (read-only) */
    CallXdr(Buffer call) {
        super(call);
    }

    @Override
    public void beginEncoding() {
        _buffer = GrizzlyMemoryManager.getDefaultMemoryManager().allocate(INITIAL_XDR_SIZE);
        super.beginEncoding();
    }
}
