package org.rpcrdma4j.codec;

/**
 * RpcRdmaLimits - the bounds a decoder enforces and a {@link ParsedHeader} is sized for.
 *
 * <p>Immutable. Every bound is checked while decoding, before anything is
 * stored, so a header that passes fits the pre-sized arrays of any
 * {@link ParsedHeader} built from the same limits. Counts are capped at
 * {@link #MAX_COUNT} so the pre-sized arrays stay small and the read-list
 * insertion sort (quadratic in the item count) stays cheap.
 *
 * <p>Memory: a {@link ParsedHeader} holds 16 bytes per segment slot, that is
 * {@code maxReadSegments + (maxWriteChunks + 1) * maxSegmentsPerChunk} slots,
 * plus a few ints per chunk: about 6 KiB with the defaults, one per receive
 * context.
 *
 * <p>The defaults serve the Linux NFS client, which sends at most one write
 * chunk, registers each chunk with a few FRWR segments, and moves at most
 * 1 MiB of payload per RPC; they leave wide head room.
 */
public final class RpcRdmaLimits {

    /** Largest value accepted for any chunk or segment count. */
    public static final int MAX_COUNT = 1024;
    /** Largest value accepted for any byte bound (1 TiB). */
    public static final long MAX_BYTES = 1L << 40;

    /** Limits that fit the Linux client with room to spare. */
    public static final RpcRdmaLimits DEFAULTS = builder().build();

    private final int maxReadSegments;
    private final int maxReadChunks;
    private final int maxWriteChunks;
    private final int maxSegmentsPerChunk;
    private final long maxReadBytes;
    private final long maxWriteBytes;
    private final long maxReplyBytes;

    private RpcRdmaLimits(Builder b) {
        this.maxReadSegments = b.maxReadSegments;
        this.maxReadChunks = b.maxReadChunks;
        this.maxWriteChunks = b.maxWriteChunks;
        this.maxSegmentsPerChunk = b.maxSegmentsPerChunk;
        this.maxReadBytes = b.maxReadBytes;
        this.maxWriteBytes = b.maxWriteBytes;
        this.maxReplyBytes = b.maxReplyBytes;
    }

    /** @return a builder holding the default values */
    public static Builder builder() {
        return new Builder();
    }

    /** @return most read-list items (segments) in one header */
    public int maxReadSegments() {
        return maxReadSegments;
    }

    /** @return most distinct read chunks (positions) in one header */
    public int maxReadChunks() {
        return maxReadChunks;
    }

    /** @return most write chunks in one write list */
    public int maxWriteChunks() {
        return maxWriteChunks;
    }

    /** @return most segments in one write chunk or in the reply chunk */
    public int maxSegmentsPerChunk() {
        return maxSegmentsPerChunk;
    }

    /** @return most bytes named by the whole read list */
    public long maxReadBytes() {
        return maxReadBytes;
    }

    /** @return most bytes named by the whole write list */
    public long maxWriteBytes() {
        return maxWriteBytes;
    }

    /** @return most bytes named by the reply chunk */
    public long maxReplyBytes() {
        return maxReplyBytes;
    }

    @Override
    public String toString() {
        return "RpcRdmaLimits[maxReadSegments=" + maxReadSegments + ", maxReadChunks=" + maxReadChunks
                + ", maxWriteChunks=" + maxWriteChunks + ", maxSegmentsPerChunk=" + maxSegmentsPerChunk
                + ", maxReadBytes=" + maxReadBytes + ", maxWriteBytes=" + maxWriteBytes
                + ", maxReplyBytes=" + maxReplyBytes + "]";
    }

    /**
     * Builder - collects limits; each setter rejects an out-of-range value at once
     * with an IllegalArgumentException naming the setting.
     */
    public static final class Builder {
        private int maxReadSegments = 64;
        private int maxReadChunks = 8;
        private int maxWriteChunks = 4;
        private int maxSegmentsPerChunk = 64;
        private long maxReadBytes = 16L << 20;
        private long maxWriteBytes = 16L << 20;
        private long maxReplyBytes = 16L << 20;

        private Builder() {
        }

        /** @param value 1 to {@link #MAX_COUNT} @return this builder */
        public Builder maxReadSegments(int value) {
            maxReadSegments = checkCount("maxReadSegments", value);
            return this;
        }

        /** @param value 1 to {@link #MAX_COUNT} @return this builder */
        public Builder maxReadChunks(int value) {
            maxReadChunks = checkCount("maxReadChunks", value);
            return this;
        }

        /** @param value 1 to {@link #MAX_COUNT} @return this builder */
        public Builder maxWriteChunks(int value) {
            maxWriteChunks = checkCount("maxWriteChunks", value);
            return this;
        }

        /** @param value 1 to {@link #MAX_COUNT} @return this builder */
        public Builder maxSegmentsPerChunk(int value) {
            maxSegmentsPerChunk = checkCount("maxSegmentsPerChunk", value);
            return this;
        }

        /** @param value 1 to {@link #MAX_BYTES} @return this builder */
        public Builder maxReadBytes(long value) {
            maxReadBytes = checkBytes("maxReadBytes", value);
            return this;
        }

        /** @param value 1 to {@link #MAX_BYTES} @return this builder */
        public Builder maxWriteBytes(long value) {
            maxWriteBytes = checkBytes("maxWriteBytes", value);
            return this;
        }

        /** @param value 1 to {@link #MAX_BYTES} @return this builder */
        public Builder maxReplyBytes(long value) {
            maxReplyBytes = checkBytes("maxReplyBytes", value);
            return this;
        }

        /**
         * build() - freeze the limits.
         *
         * @return the limits
         * @throws IllegalArgumentException if maxReadChunks exceeds maxReadSegments
         *         (every chunk holds at least one segment)
         */
        public RpcRdmaLimits build() {
            if (maxReadChunks > maxReadSegments) {
                throw new IllegalArgumentException("maxReadChunks (" + maxReadChunks
                        + ") must not exceed maxReadSegments (" + maxReadSegments + ")");
            }
            return new RpcRdmaLimits(this);
        }

        private static int checkCount(String name, int value) {
            if (value < 1 || value > MAX_COUNT) {
                throw new IllegalArgumentException(name + " must be between 1 and " + MAX_COUNT + ", was " + value);
            }
            return value;
        }

        private static long checkBytes(String name, long value) {
            if (value < 1 || value > MAX_BYTES) {
                throw new IllegalArgumentException(name + " must be between 1 and " + MAX_BYTES + ", was " + value);
            }
            return value;
        }
    }
}
