package org.rpcrdma4j.fuzz;

import org.dcache.oncrpc4j.xdr.BadXdrOncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;

/**
 * LengthCheckingXdr - oncrpc4j's {@link Xdr}, but every variable-length item it is about to decode
 * (opaque, string, int vector) must lie within the bytes left in the message: one that claims
 * more throws an {@link AssertionError} before oncrpc4j allocates anything. Plain oncrpc4j
 * allocates the claimed length first (and throws {@link OutOfMemoryError} near 2^31).
 *
 * <p>For fuzz tests: decoded after {@code RpcHeaderCheck} passed a header, a throw here is a
 * length the check let through.
 */
public final class LengthCheckingXdr extends Xdr {
    public LengthCheckingXdr(byte[] message) {
        super(message);
    }

    @Override
    public byte[] xdrDecodeDynamicOpaque() throws BadXdrOncRpcException {
        requireWithin(1);
        return super.xdrDecodeDynamicOpaque();
    }

    @Override
    public String xdrDecodeString() throws BadXdrOncRpcException {
        requireWithin(1);
        return super.xdrDecodeString();
    }

    @Override
    public int[] xdrDecodeIntVector() throws BadXdrOncRpcException {
        requireWithin(Integer.BYTES);
        return super.xdrDecodeIntVector();
    }

    @Override
    public byte[] xdrDecodeByteVector() throws BadXdrOncRpcException {
        requireWithin(1);
        return super.xdrDecodeByteVector();
    }

    /** The count word at the position, times {@code unit} bytes, within what follows it. */
    private void requireWithin(int unit) {
        Buffer b = asBuffer();
        int left = b.limit() - b.position() - Integer.BYTES;
        if (left < 0) {
            return; // no count word: oncrpc4j fails to read it, allocating nothing
        }
        long claimed = (long) b.getInt(b.position()) * unit;
        if (claimed > left) {
            throw new AssertionError("oncrpc4j would allocate " + claimed + " bytes for an item of which " + left
                    + " bytes are left in the message");
        }
    }
}
