package org.rpcrdma4j.server;

import java.lang.reflect.Constructor;
import org.dcache.oncrpc4j.xdr.BadXdrOncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * ClaimCheckedXdr - an oncrpc4j {@link Xdr} that checks the length a peer claims for a
 * variable-length item (opaque, string, array of numbers) against the bytes the message still
 * holds, before anything is allocated.
 *
 * <p>oncrpc4j's {@code Xdr} refuses only a negative length; a 40-byte call whose arguments
 * claim a 2 GiB opaque made it allocate 2 GiB (or throw OutOfMemoryError) while the program
 * decoded its arguments. Every call the host serves is decoded through this class (over RDMA
 * through the transport's call stream, over oncrpc4j's TCP service through the header check
 * filter), so a claim beyond the message is a {@link BadXdrOncRpcException}: the program's
 * decoding fails, and the call is answered GARBAGE_ARGS.
 *
 * <p>Not covered: a program that reads a count itself and allocates from it (XDR code generated
 * by jrpcgen allocates an array of that many objects before decoding them): such a program must
 * bound the count.
 */
public class ClaimCheckedXdr extends Xdr {

    /**
     * oncrpc4j's exception for undecodable XDR, whose constructor is package-private: made
     * through reflection so that the refusal says what was claimed (a program's caller maps it
     * to GARBAGE_ARGS like any {@code BadXdrOncRpcException}); null if that is not possible.
     */
    private static final Constructor<BadXdrOncRpcException> REFUSAL = refusalConstructor();

    private static Constructor<BadXdrOncRpcException> refusalConstructor() {
        try {
            Constructor<BadXdrOncRpcException> c = BadXdrOncRpcException.class.getDeclaredConstructor(String.class);
            c.setAccessible(true);
            return c;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** A stream over {@code buffer}, growing through {@code memoryManager} when encoding. */
    public ClaimCheckedXdr(Buffer buffer, MemoryManager memoryManager) {
        super(buffer, memoryManager);
    }

    /** A stream decoding {@code message}. */
    public ClaimCheckedXdr(byte[] message) {
        super(message);
    }

    /**
     * checkClaim() - an item of {@code count} elements of {@code wireBytes} each (XDR pads to 4)
     * must fit in what the message holds from {@code offset} bytes ahead.
     */
    private void checkClaim(long count, int wireBytes, int offset, String item) throws BadXdrOncRpcException {
        if (count < 0) {
            return; // oncrpc4j refuses a negative length itself ("corrupted xdr")
        }
        long claimed = count * wireBytes;
        long holds = (long) _buffer.remaining() - offset;
        if (claimed > holds) {
            throw refusal(item + " claims " + claimed + " bytes, the message holds " + Math.max(holds, 0));
        }
    }

    private BadXdrOncRpcException refusal(String why) {
        if (REFUSAL != null) {
            try {
                return REFUSAL.newInstance(why);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // fall through to oncrpc4j's own words
            }
        }
        try {
            super.xdrDecodeOpaque(-1); // oncrpc4j's refusal of a length ("corrupted xdr"), nothing allocated
        } catch (BadXdrOncRpcException refused) {
            return refused;
        }
        throw new IllegalStateException(why);
    }

    /** The length word ahead of a variable-length item, without consuming it. */
    private long peekLength() {
        return _buffer.remaining() >= Integer.BYTES ? _buffer.getInt(_buffer.position()) : -1;
    }

    /** A length rounded up to XDR's 4 bytes, in a long: 2^31 - 1 rounds up past an int. */
    private static long padded(long length) {
        return length < 0 ? length : org.rpcrdma4j.codec.Xdr.roundUp(length);
    }

    @Override
    public byte[] xdrDecodeDynamicOpaque() throws BadXdrOncRpcException {
        checkClaim(padded(peekLength()), 1, Integer.BYTES, "a variable-length opaque");
        return super.xdrDecodeDynamicOpaque();
    }

    @Override
    public byte[] xdrDecodeByteVector() throws BadXdrOncRpcException {
        // oncrpc4j's byte vector carries one byte per XDR word
        checkClaim(peekLength(), Integer.BYTES, Integer.BYTES, "a byte vector");
        return super.xdrDecodeByteVector();
    }

    @Override
    public String xdrDecodeString() throws BadXdrOncRpcException {
        checkClaim(padded(peekLength()), 1, Integer.BYTES, "a string");
        return super.xdrDecodeString();
    }

    @Override
    public byte[] xdrDecodeOpaque(int length) throws BadXdrOncRpcException {
        checkClaim(padded(length), 1, 0, "a fixed-length opaque");
        return super.xdrDecodeOpaque(length);
    }

    @Override
    public byte[] xdrDecodeByteFixedVector(int length) throws BadXdrOncRpcException {
        checkClaim(length, Integer.BYTES, 0, "a fixed byte vector");
        return super.xdrDecodeByteFixedVector(length);
    }

    @Override
    public int[] xdrDecodeIntVector() throws BadXdrOncRpcException {
        checkClaim(peekLength(), Integer.BYTES, Integer.BYTES, "an int vector");
        return super.xdrDecodeIntVector();
    }

    @Override
    public int[] xdrDecodeIntFixedVector(int length) throws BadXdrOncRpcException {
        checkClaim(length, Integer.BYTES, 0, "a fixed int vector");
        return super.xdrDecodeIntFixedVector(length);
    }

    @Override
    public long[] xdrDecodeLongVector() throws BadXdrOncRpcException {
        checkClaim(peekLength(), Long.BYTES, Integer.BYTES, "a long vector");
        return super.xdrDecodeLongVector();
    }

    @Override
    public long[] xdrDecodeLongFixedVector(int length) throws BadXdrOncRpcException {
        checkClaim(length, Long.BYTES, 0, "a fixed long vector");
        return super.xdrDecodeLongFixedVector(length);
    }

    @Override
    public short[] xdrDecodeShortVector() throws BadXdrOncRpcException {
        checkClaim(peekLength(), Integer.BYTES, Integer.BYTES, "a short vector");
        return super.xdrDecodeShortVector();
    }

    @Override
    public short[] xdrDecodeShortFixedVector(int length) throws BadXdrOncRpcException {
        checkClaim(length, Integer.BYTES, 0, "a fixed short vector");
        return super.xdrDecodeShortFixedVector(length);
    }

    @Override
    public float[] xdrDecodeFloatVector() throws BadXdrOncRpcException {
        checkClaim(peekLength(), Float.BYTES, Integer.BYTES, "a float vector");
        return super.xdrDecodeFloatVector();
    }

    @Override
    public float[] xdrDecodeFloatFixedVector(int length) throws BadXdrOncRpcException {
        checkClaim(length, Float.BYTES, 0, "a fixed float vector");
        return super.xdrDecodeFloatFixedVector(length);
    }

    @Override
    public double[] xdrDecodeDoubleVector() throws BadXdrOncRpcException {
        checkClaim(peekLength(), Double.BYTES, Integer.BYTES, "a double vector");
        return super.xdrDecodeDoubleVector();
    }

    @Override
    public double[] xdrDecodeDoubleFixedVector(int length) throws BadXdrOncRpcException {
        checkClaim(length, Double.BYTES, 0, "a fixed double vector");
        return super.xdrDecodeDoubleFixedVector(length);
    }
}
