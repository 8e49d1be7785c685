package org.rpcrdma4j.transport.internal.sendto;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.ReplyEncoder;
import org.rpcrdma4j.codec.SegmentList;
import org.rpcrdma4j.codec.WriteList;
import org.rpcrdma4j.codec.Xdr;

/**
 * ReplyPlan - how one reply goes out, decided in one place from the call's chunk lists and the
 * reply's length (RFC 8166 §3.4.5 for the DDP item, §3.5 for the choice of message):
 * <ul>
 * <li>a DDP-eligible item that fits the client's first write chunk is written there with RDMA
 *     WRITE and leaves the message, length word kept and XDR round-up dropped (the
 *     <em>reduced</em> message);</li>
 * <li>{@link Mode#INLINE}: the reduced message follows an RDMA_MSG header in the SEND, when both
 *     fit the send limit;</li>
 * <li>{@link Mode#REPLY_CHUNK}: else it is written into the client's reply chunk, announced by an
 *     RDMA_NOMSG, when the chunk is large enough;</li>
 * <li>{@link Mode#TOO_LARGE}: else, or when its staging or its work requests could never fit,
 *     it is refused with ERR_CHUNK.</li>
 * </ul>
 * The SEND is a Send With Invalidate when the call's job allows it ({@link ReplyJob#invalidates()}).
 *
 * <p>Ownership: one plan per {@link ReplySender}, made once and re-planned for the reply at the
 * head of its queue (planned once however often that reply waits), so planning allocates
 * nothing. Threading: its sender's, under the connection's send lock.
 */
final class ReplyPlan {
    /** Which message carries the reply. */
    enum Mode {
        /** RDMA_MSG with the message in the SEND. */
        INLINE,
        /** RDMA_NOMSG; the message is written into the client's reply chunk. */
        REPLY_CHUNK,
        /** Fits nowhere: answered with ERR_CHUNK. */
        TOO_LARGE
    }

    private final int sendLimit;
    private final int stagingCapacity;
    private final int sendQueueDepth;

    private ReplyJob job;
    private ParsedHeader call;
    private Mode mode;
    private int itemOffset;
    private int itemLength;
    private int itemPadded;
    private int reducedLength;
    private int stagingBytes;
    private int requests;
    private boolean invalidate;
    private int invalidateKey;

    /**
     * @param sendLimit the most a SEND may carry: the client's receive size and our send buffer
     * @param stagingCapacity the largest staging extent there can ever be
     * @param sendQueueDepth the most work requests the send queue holds
     */
    ReplyPlan(int sendLimit, int stagingCapacity, int sendQueueDepth) {
        this.sendLimit = sendLimit;
        this.stagingCapacity = stagingCapacity;
        this.sendQueueDepth = sendQueueDepth;
    }

    /** plan() - plan the reply {@code job} carries (sent: its reply and DDP item are set). */
    void plan(ReplyJob job) {
        plan(job.call(), job.reply(), job.ddpItemOffset(), job.invalidates(), job.invalidateKey());
        this.job = job;
    }

    /**
     * plan() - plan a reply from its parts.
     *
     * @param call the call's header (its write list and reply chunk)
     * @param reply the RPC reply, from its position to its limit
     * @param ddpItemOffset where the DDP-eligible item's length word lies in the reply, or -1
     * @param invalidate whether the SEND may invalidate {@code invalidateKey}
     * @param invalidateKey the key a Send With Invalidate names
     */
    void plan(ParsedHeader call, ByteBuffer reply, int ddpItemOffset, boolean invalidate, int invalidateKey) {
        this.job = null;
        this.call = call;
        this.invalidate = invalidate;
        this.invalidateKey = invalidate ? invalidateKey : 0;
        itemOffset = -1;
        itemLength = 0;
        itemPadded = 0;
        WriteList writeList = call.writeList();
        if (ddpItemOffset >= 0 && writeList.chunkCount() > 0) {
            int item = reply.getInt(reply.position() + ddpItemOffset);
            if (item > 0 && item <= writeList.chunkLength(0)) {
                itemOffset = ddpItemOffset + Integer.BYTES;
                itemLength = item;
                itemPadded = (int) Xdr.roundUp(item);
            }
        }
        reducedLength = reply.remaining() - itemPadded;
        int writeRequests = itemLength > 0 ? segmentsFor(writeList.segments(), writeList.firstSegment(0),
                writeList.segmentCount(0), itemLength) : 0;
        stagingBytes = 0;
        requests = 0;
        if (ReplyEncoder.replyHeaderLength(call, false) + reducedLength <= sendLimit) {
            mode = Mode.INLINE;
            stagingBytes = itemLength;
            requests = writeRequests + 1;
        } else if (call.hasReplyChunk() && call.replyChunk().totalLength() >= reducedLength
                && ReplyEncoder.replyHeaderLength(call, true) <= sendLimit) {
            mode = Mode.REPLY_CHUNK;
            stagingBytes = bodyStart() + reducedLength;
            SegmentList chunk = call.replyChunk();
            requests = writeRequests + segmentsFor(chunk, 0, chunk.count(), reducedLength) + 1;
        } else {
            mode = Mode.TOO_LARGE;
        }
        if (mode != Mode.TOO_LARGE && (stagingBytes > stagingCapacity || requests > sendQueueDepth)) {
            mode = Mode.TOO_LARGE;
        }
    }

    /** @return true when this is the plan of {@code job} */
    boolean isFor(ReplyJob job) {
        return this.job == job;
    }

    /** clear() - the planned reply left the queue: forget it and its call. */
    void clear() {
        job = null;
        call = null;
    }

    /** @return the call's header the reply answers */
    ParsedHeader call() {
        return call;
    }

    Mode mode() {
        return mode;
    }

    /** @return where the DDP item's bytes start in the reply (after its length word), or -1 */
    int itemOffset() {
        return itemOffset;
    }

    /** @return the DDP item's bytes written into the first write chunk; 0 when none */
    int itemLength() {
        return itemLength;
    }

    /** @return the item's length with its XDR round-up: what leaves the message */
    int itemPadded() {
        return itemPadded;
    }

    /** @return the message's length without the DDP item and its round-up */
    int reducedLength() {
        return reducedLength;
    }

    /** @return staging bytes the reply needs: the item, and for a reply chunk the message after it */
    int stagingBytes() {
        return stagingBytes;
    }

    /** @return work requests the reply posts: its RDMA WRITEs and its SEND */
    int requests() {
        return requests;
    }

    /** @return whether the SEND is a Send With Invalidate */
    boolean invalidate() {
        return invalidate;
    }

    /** @return the key a Send With Invalidate names (0 when none) */
    int invalidateKey() {
        return invalidateKey;
    }

    /** @return where the message goes in a reply's staging extent: after the item, cache-line aligned */
    int bodyStart() {
        return (itemLength + ReplyStaging.ALIGNMENT - 1) & -ReplyStaging.ALIGNMENT;
    }

    /** @return the number of segments that {@code length} bytes fill, first to last */
    private static int segmentsFor(SegmentList segments, int first, int count, int length) {
        long left = length;
        int n = 0;
        for (int i = first; i < first + count && left > 0; i++) {
            long take = Math.min(left, segments.length(i));
            if (take > 0) {
                n++;
                left -= take;
            }
        }
        return n;
    }
}
