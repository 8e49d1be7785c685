package org.rpcrdma4j.server.tcp;

import java.io.IOException;

import org.dcache.oncrpc4j.rpc.RpcMessageParserTCP;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.memory.BuffersBuffer;
import org.glassfish.grizzly.memory.MemoryManager;
import org.rpcrdma4j.server.ClaimCheckedXdr;

/**
 * ClaimCheckedRecordParser - takes the place of oncrpc4j's record parser in its TCP filter chain:
 * it reassembles each RPC message from its record's fragments (RFC 5531 section 11, record
 * marking) exactly as oncrpc4j's does, but hands the message on as a {@link ClaimCheckedXdr}, the
 * stream every call the host serves is decoded through. oncrpc4j's parser makes a plain
 * {@code Xdr}, which {@link RpcHeaderCheckFilter} then had to wrap in a second stream object per
 * call (32 bytes a call more than before the claim checks, in the JMH TCP rows of issue #33).
 *
 * <p>The bytes stay where Grizzly read them: a record of one fragment is a slice of the read
 * buffer, one of several a composite of the fragments' slices; nothing is copied. What follows
 * the record in the same read goes on through the chain as the next message. A record not yet
 * complete is kept by the chain until more bytes arrive; how large it may grow is bounded before
 * this filter ({@link RecordSizeGuard}).
 *
 * <p>It extends oncrpc4j's parser only so that it is what the chain's other filters and oncrpc4j
 * expect at that place; none of the parent's behaviour is used.
 */
final class ClaimCheckedRecordParser extends RpcMessageParserTCP {
    /** The bit of a fragment header that marks its record's last fragment. */
    private static final int LAST_FRAGMENT = 0x8000_0000;
    private static final int FRAGMENT_BYTES = 0x7fff_ffff;
    private static final int HEADER_BYTES = Integer.BYTES;

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        if (!(ctx.getMessage() instanceof Buffer stream)) {
            return ctx.getStopAction();
        }
        if (!holdsWholeRecord(stream)) {
            return ctx.getStopAction(stream); // the chain keeps it and calls again with more appended
        }
        ctx.setMessage(takeRecord(stream, ctx.getMemoryManager()));
        Buffer rest = stream.hasRemaining() ? stream.split(stream.position()) : null;
        return ctx.getInvokeAction(rest);
    }

    /** @return whether {@code stream} holds, from its position, every fragment of a record (nothing consumed) */
    static boolean holdsWholeRecord(Buffer stream) {
        int at = stream.position();
        int end = stream.limit();
        while (end - at >= HEADER_BYTES) {
            int header = stream.getInt(at);
            long fragmentEnd = (long) at + HEADER_BYTES + (header & FRAGMENT_BYTES);
            if (fragmentEnd > end) {
                return false;
            }
            if ((header & LAST_FRAGMENT) != 0) {
                return true;
            }
            at = (int) fragmentEnd;
        }
        return false;
    }

    /**
     * takeRecord() - the record at {@code stream}'s position (whole: {@link #holdsWholeRecord}) as
     * a stream over its fragments' bytes, the position moved past it.
     */
    static ClaimCheckedXdr takeRecord(Buffer stream, MemoryManager memoryManager) {
        BuffersBuffer fragments = null;
        while (true) {
            int header = stream.getInt();
            int length = header & FRAGMENT_BYTES;
            int at = stream.position();
            Buffer fragment = stream.slice(at, at + length);
            stream.position(at + length);
            boolean last = (header & LAST_FRAGMENT) != 0;
            if (last && fragments == null) {
                return new ClaimCheckedXdr(fragment, memoryManager); // the usual case: one fragment
            }
            if (fragments == null) {
                fragments = BuffersBuffer.create(memoryManager);
            }
            fragments.append(fragment);
            if (last) {
                return new ClaimCheckedXdr(fragments, memoryManager);
            }
        }
    }
}
