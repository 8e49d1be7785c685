package org.rpcrdma4j.testing.rawpeer;

import org.rpcrdma4j.verbs.Access;

/**
 * PeerShape - how much a {@link RawPeer} registers and how deep its queues are: send and receive
 * slots (one message each), the source region the server READs chunk data from, the sink region
 * it WRITEs write and reply chunks into, and the RDMA READs the peer lets the server have in
 * flight against it (responder resources).
 *
 * <p>The send queue is as deep as there are send slots, the receive queue as deep as there are
 * receive slots; the completion queue holds both twice. A region of zero bytes is not registered.
 */
public final class PeerShape {
    private final int slotBytes;
    private final int sendSlots;
    private final int receiveSlots;
    private final int sourceBytes;
    private final int sourceAccess;
    private final int sinkBytes;
    private final int responderResources;

    private PeerShape(Builder b) {
        slotBytes = b.slotBytes;
        sendSlots = b.sendSlots;
        receiveSlots = b.receiveSlots;
        sourceBytes = b.sourceBytes;
        sourceAccess = b.sourceAccess;
        sinkBytes = b.sinkBytes;
        responderResources = b.responderResources;
    }

    /** @return a builder: 4 KiB slots, 16 send and 32 receive slots, no source or sink, 16 responder resources */
    public static Builder builder() {
        return new Builder();
    }

    /** @return bytes of each send and receive slot: the largest message the peer sends or takes */
    public int slotBytes() {
        return slotBytes;
    }

    /** @return send slots, and the send queue's depth */
    public int sendSlots() {
        return sendSlots;
    }

    /** @return receive slots, all posted while the peer reposts */
    public int receiveSlots() {
        return receiveSlots;
    }

    /** @return bytes of the region the server READs chunk data from (0: none) */
    public int sourceBytes() {
        return sourceBytes;
    }

    /** @return the source region's {@link Access} flags */
    public int sourceAccess() {
        return sourceAccess;
    }

    /** @return bytes of the region the server WRITEs write and reply chunks into (0: none) */
    public int sinkBytes() {
        return sinkBytes;
    }

    /** @return incoming RDMA READs allowed in flight (clamped to the device's limit at connect) */
    public int responderResources() {
        return responderResources;
    }

    @Override
    public String toString() {
        return "PeerShape[slot " + slotBytes + " B, " + sendSlots + " sends, " + receiveSlots + " receives, source "
                + sourceBytes + " B, sink " + sinkBytes + " B, responder resources " + responderResources + "]";
    }

    /** Builder of a {@link PeerShape}; bad values are an {@link IllegalArgumentException} naming the field. */
    public static final class Builder {
        private int slotBytes = 4096;
        private int sendSlots = 16;
        private int receiveSlots = 32;
        private int sourceBytes;
        private int sourceAccess = Access.REMOTE_READ;
        private int sinkBytes;
        private int responderResources = 16;

        private Builder() {
        }

        /** @param bytes of each send and receive slot (at least 64) @return this */
        public Builder slotBytes(int bytes) {
            slotBytes = atLeast("slotBytes", bytes, 64);
            return this;
        }

        /** @param count send slots (at least 1) @return this */
        public Builder sendSlots(int count) {
            sendSlots = atLeast("sendSlots", count, 1);
            return this;
        }

        /** @param count receive slots (at least 1) @return this */
        public Builder receiveSlots(int count) {
            receiveSlots = atLeast("receiveSlots", count, 1);
            return this;
        }

        /**
         * @param bytes of the source region (0: none)
         * @param access its {@link Access} flags: REMOTE_READ, plus REMOTE_WRITE and LOCAL_WRITE
         *        where the server may also WRITE into it
         * @return this
         */
        public Builder source(int bytes, int access) {
            sourceBytes = atLeast("sourceBytes", bytes, 0);
            sourceAccess = access;
            return this;
        }

        /** @param bytes of the sink region (0: none) @return this */
        public Builder sinkBytes(int bytes) {
            sinkBytes = atLeast("sinkBytes", bytes, 0);
            return this;
        }

        /** @param count incoming RDMA READs allowed in flight (at least 1) @return this */
        public Builder responderResources(int count) {
            responderResources = atLeast("responderResources", count, 1);
            return this;
        }

        public PeerShape build() {
            return new PeerShape(this);
        }

        private static int atLeast(String name, int value, int min) {
            if (value < min) {
                throw new IllegalArgumentException(name + " must be at least " + min + ": " + value);
            }
            return value;
        }
    }
}
