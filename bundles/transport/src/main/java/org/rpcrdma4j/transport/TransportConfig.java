package org.rpcrdma4j.transport;

import static org.rpcrdma4j.transport.TransportSetting.*;

import java.util.Objects;

import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.codec.Xdr;

/**
 * TransportConfig - the settings of an {@link RdmaTransport}. Immutable; built with
 * {@link #builder()}; a bad value is an {@link IllegalArgumentException} naming the setting.
 *
 * <p>Defaults follow Linux's svcrdma: 64 credits (RPCRDMA_MAX_REQUESTS), 4096-byte inline
 * receives (RPCRDMA_DEF_INLINE_THRESH), 16 READs in flight per connection.
 */
public final class TransportConfig {
    /** RFC 8797 encodes inline sizes in units of 1 KiB, minus one, in eight bits. */
    public static final int INLINE_UNIT = 1024;
    /** The largest inline size RFC 8797 can advertise. */
    public static final int MAX_INLINE = 256 * INLINE_UNIT;

    /** Most completion loops a transport may run. */
    public static final int MAX_COMPLETION_LOOPS = 64;
    /** Longest a completion loop may poll for work before it sleeps (completionSpinMicros). */
    public static final int MAX_COMPLETION_SPIN_MICROS = 1000;
    /** Longest callTimeSliceMicros: 100 ms. */
    public static final int MAX_CALL_TIME_SLICE_MICROS = 100_000;
    /** The default callTimeSliceMicros: 1 ms. */
    public static final int DEFAULT_CALL_TIME_SLICE_MICROS = 1000;
    /** Cap of the default number of completion loops (one per CPU). */
    public static final int DEFAULT_MAX_COMPLETION_LOOPS = 8;
    /** Bytes of READ sinks per loop, device and strategy when {@code readSinkCount} is 0 (the default): 24 MiB. */
    public static final int AUTO_READ_POOL_BYTES = 24 << 20;
    /** Most READ sinks of one pool. */
    public static final int MAX_READ_SINKS = 65536;

    /**
     * autoReadSinkCount() - the sinks of one pool when {@code readSinkCount} is 0 (the default):
     * as many as hold {@link #AUTO_READ_POOL_BYTES} at the sink length the strategy chooses, at
     * least 1 and at most {@link #MAX_READ_SINKS}.
     *
     * @param sinkLength the strategy's sink length in bytes, positive
     * @return the pool's sink count
     */
    public static int autoReadSinkCount(int sinkLength) {
        long count = (AUTO_READ_POOL_BYTES + (long) sinkLength - 1) / sinkLength;
        return (int) Math.min(MAX_READ_SINKS, Math.max(1, count));
    }
    /** The defaults. */
    public static final TransportConfig DEFAULTS = builder().build();

    private final int inlineReceiveThreshold;
    private final int maxInlineSend;
    private final int credits;
    private final int receiveContexts;
    private final int repostBatch;
    private final int maxOutstandingReads;
    private final int sendBuffers;
    private final int readSinkCount;
    private final int readSinkLength;
    private final int sinkPageSize;
    private final int completionBatch;
    private final int replyStagingBytes;
    private final int completionLoops;
    private final int stallTimeoutSeconds;
    private final int completionSpinMicros;
    private final boolean loopRunsCalls;
    private final int nextCallSpinMicros;
    private final int callTimeSliceMicros;
    private final int maxConnections;
    private final int backchannelCredits;
    private final RpcRdmaLimits limits;

    private TransportConfig(Builder b) {
        inlineReceiveThreshold = b.inlineReceiveThreshold;
        maxInlineSend = b.maxInlineSend;
        credits = b.credits;
        backchannelCredits = b.backchannelCredits;
        receiveContexts = b.receiveContexts > 0 ? b.receiveContexts : 2 * b.credits + b.backchannelCredits;
        repostBatch = Math.min(b.repostBatch, b.credits);
        maxOutstandingReads = b.maxOutstandingReads;
        sendBuffers = b.sendBuffers;
        readSinkCount = b.readSinkCount;
        readSinkLength = b.readSinkLength;
        sinkPageSize = b.sinkPageSize;
        completionBatch = b.completionBatch;
        replyStagingBytes = b.replyStagingBytes;
        completionLoops = b.completionLoops;
        stallTimeoutSeconds = b.stallTimeoutSeconds;
        completionSpinMicros = b.completionSpinMicros;
        loopRunsCalls = b.loopRunsCalls;
        nextCallSpinMicros = b.nextCallSpinMicros;
        callTimeSliceMicros = b.callTimeSliceMicros;
        maxConnections = b.maxConnections;
        limits = b.limits;
        if (receiveContexts < credits + backchannelCredits) {
            throw new IllegalArgumentException("receiveContexts (" + receiveContexts + ") must not be below credits ("
                    + credits + ") plus backchannelCredits (" + backchannelCredits + ")");
        }
        if ((long) receiveContexts * inlineReceiveThreshold > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("receiveContexts x inlineReceiveThreshold must fit one buffer of 2 GiB: "
                    + receiveContexts + " x " + inlineReceiveThreshold);
        }
    }

    /** @return a builder holding the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return bytes of each receive buffer, advertised as our receive size (default 4096) */
    public int inlineReceiveThreshold() {
        return inlineReceiveThreshold;
    }

    /** @return the most bytes of a send buffer, whatever the client may receive (default 4096) */
    public int maxInlineSend() {
        return maxInlineSend;
    }

    /** @return receives posted per connection and credits granted (default 64) */
    public int credits() {
        return credits;
    }

    /** @return receive contexts per connection, posted or held by calls (default 2 x credits) */
    public int receiveContexts() {
        return receiveContexts;
    }

    /** @return free receive contexts gathered before they are reposted in one chain (default 8) */
    public int repostBatch() {
        return repostBatch;
    }

    /** @return RDMA READs in flight per connection at most (ORD, default 16) */
    public int maxOutstandingReads() {
        return maxOutstandingReads;
    }

    /** @return send buffers per connection (default 16) */
    public int sendBuffers() {
        return sendBuffers;
    }

    /**
     * @return READ sinks per completion loop, device and strategy; 0 (the default): as many as
     *         hold {@link #AUTO_READ_POOL_BYTES} (24 MiB) at the sink length the strategy chooses,
     *         so one client keeping 16 x 1 MiB in flight fits within its share (three quarters of
     *         the pool) and a quarter stays for the loop's other connections
     */
    public int readSinkCount() {
        return readSinkCount;
    }

    /** @return most bytes of one READ sink (default 256 KiB) */
    public int readSinkLength() {
        return readSinkLength;
    }

    /** @return span of one SGE into pooled sink memory (default 4096) */
    public int sinkPageSize() {
        return sinkPageSize;
    }

    /** @return completions taken per poll (default 32) */
    public int completionBatch() {
        return completionBatch;
    }

    /**
     * @return bytes of registered memory per completion loop and device that replies' RDMA WRITE
     *         data (write chunk and reply chunk) is staged in; bounds the largest reply and the
     *         data in flight; each connection holds at most its share (default 24 MiB: 16 x 1 MiB
     *         replies of one client fit within its share of three quarters)
     */
    public int replyStagingBytes() {
        return replyStagingBytes;
    }

    /**
     * @return backward-direction calls (RFC 8167: server to client, e.g. NFSv4.1 callbacks) this
     *         side keeps outstanding per connection at most, whatever the client grants; the
     *         receives posted per connection are {@link #credits()} plus this many, for the
     *         client's replies to them (Linux: sc_max_bc_requests, 2). 0 turns the back channel
     *         off: every backward call fails at once (default 2)
     */
    public int backchannelCredits() {
        return backchannelCredits;
    }

    /** @return the header limits the decoder enforces */
    public RpcRdmaLimits limits() {
        return limits;
    }

    /** @return a builder holding these settings, to derive a variant */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.inlineReceiveThreshold = inlineReceiveThreshold;
        b.maxInlineSend = maxInlineSend;
        b.credits = credits;
        b.receiveContexts = receiveContexts;
        b.repostBatch = repostBatch;
        b.maxOutstandingReads = maxOutstandingReads;
        b.sendBuffers = sendBuffers;
        b.readSinkCount = readSinkCount;
        b.readSinkLength = readSinkLength;
        b.sinkPageSize = sinkPageSize;
        b.completionBatch = completionBatch;
        b.replyStagingBytes = replyStagingBytes;
        b.completionLoops = completionLoops;
        b.stallTimeoutSeconds = stallTimeoutSeconds;
        b.completionSpinMicros = completionSpinMicros;
        b.loopRunsCalls = loopRunsCalls;
        b.nextCallSpinMicros = nextCallSpinMicros;
        b.callTimeSliceMicros = callTimeSliceMicros;
        b.maxConnections = maxConnections;
        b.backchannelCredits = backchannelCredits;
        b.limits = limits;
        return b;
    }

    /** @return the number of completion loops (threads) serving connections */
    public int completionLoops() {
        return completionLoops;
    }

    /** @return how long posted work may go without completing before its connection is closed, in seconds */
    public int stallTimeoutSeconds() {
        return stallTimeoutSeconds;
    }

    /**
     * @return how long a completion loop keeps polling its queues after a pass found nothing,
     *         before it arms them and sleeps on its completion channel, in microseconds (default 0:
     *         sleep at once)
     */
    public int completionSpinMicros() {
        return completionSpinMicros;
    }

    /**
     * @return whether the completion loop thread that received a call runs it itself, while the
     *         loop's standby thread takes over the completions (leader/followers; default true),
     *         instead of handing every call to a worker
     */
    public boolean loopRunsCalls() {
        return loopRunsCalls;
    }

    /**
     * @return how long, after the loop thread took every call of a wake-up to run itself
     *         ({@link #loopRunsCalls()}), the loop polls for the client's next call before it
     *         sleeps, in microseconds (default 50; 0: never); adaptive, see {@link Builder#nextCallSpinMicros}
     */
    public int nextCallSpinMicros() {
        return nextCallSpinMicros;
    }

    /**
     * @return how long a completion-loop thread may run a call it kept ({@link #loopRunsCalls()})
     *         before its standby takes the loop over, in microseconds (default 1000; 0: the
     *         standby is woken before every such call); see {@link Builder#callTimeSliceMicros}
     */
    public int callTimeSliceMicros() {
        return callTimeSliceMicros;
    }

    /** @return the threads each completion loop runs on: a crew of two with {@link #loopRunsCalls()}, else one */
    public int threadsPerLoop() {
        return loopRunsCalls ? 2 : 1;
    }

    /** @return the most connections served at once */
    public int maxConnections() {
        return maxConnections;
    }

    /** @return the default number of completion loops: one per CPU, at most {@value #DEFAULT_MAX_COMPLETION_LOOPS} */
    public static int defaultCompletionLoops() {
        return Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), DEFAULT_MAX_COMPLETION_LOOPS));
    }

    @Override
    public String toString() {
        return "TransportConfig[inlineReceiveThreshold=" + inlineReceiveThreshold + ", maxInlineSend=" + maxInlineSend
                + ", credits=" + credits + ", receiveContexts=" + receiveContexts + ", repostBatch=" + repostBatch
                + ", maxOutstandingReads=" + maxOutstandingReads + ", sendBuffers=" + sendBuffers
                + ", readSinkCount=" + readSinkCount + ", readSinkLength=" + readSinkLength
                + ", sinkPageSize=" + sinkPageSize + ", completionBatch=" + completionBatch
                + ", replyStagingBytes=" + replyStagingBytes + ", completionLoops=" + completionLoops
                + ", stallTimeoutSeconds=" + stallTimeoutSeconds + ", completionSpinMicros=" + completionSpinMicros
                + ", loopRunsCalls=" + loopRunsCalls + ", nextCallSpinMicros=" + nextCallSpinMicros
                + ", callTimeSliceMicros=" + callTimeSliceMicros + ", maxConnections=" + maxConnections
                + ", backchannelCredits=" + backchannelCredits + ", " + limits + "]";
    }

    /** Builder - collects settings; each setter checks its value at once, against its {@link TransportSetting} row. */
    public static final class Builder {
        private int inlineReceiveThreshold = INLINE_RECEIVE_THRESHOLD.defaultValue();
        private int maxInlineSend = MAX_INLINE_SEND.defaultValue();
        private int credits = CREDITS.defaultValue();
        private int receiveContexts = RECEIVE_CONTEXTS.defaultValue();
        private int repostBatch = REPOST_BATCH.defaultValue();
        private int maxOutstandingReads = MAX_OUTSTANDING_READS.defaultValue();
        private int sendBuffers = SEND_BUFFERS.defaultValue();
        private int readSinkCount = READ_SINK_COUNT.defaultValue();
        private int readSinkLength = READ_SINK_LENGTH.defaultValue();
        private int sinkPageSize = SINK_PAGE_SIZE.defaultValue();
        private int completionBatch = COMPLETION_BATCH.defaultValue();
        private int replyStagingBytes = REPLY_STAGING_BYTES.defaultValue();
        private int completionLoops = defaultCompletionLoops();
        private int stallTimeoutSeconds = STALL_TIMEOUT_SECONDS.defaultValue();
        private int completionSpinMicros = COMPLETION_SPIN_MICROS.defaultValue();
        private boolean loopRunsCalls = true;
        private int nextCallSpinMicros = NEXT_CALL_SPIN_MICROS.defaultValue();
        private int callTimeSliceMicros = CALL_TIME_SLICE_MICROS.defaultValue();
        private int maxConnections = MAX_CONNECTIONS.defaultValue();
        private int backchannelCredits = BACKCHANNEL_CREDITS.defaultValue();
        private RpcRdmaLimits limits = RpcRdmaLimits.DEFAULTS;

        private Builder() {
        }

        /** @param bytes a multiple of 1024 within 1024..262144 @return this builder */
        public Builder inlineReceiveThreshold(int bytes) {
            inlineReceiveThreshold = inlineSize(INLINE_RECEIVE_THRESHOLD, bytes);
            return this;
        }

        /** @param bytes a multiple of 1024 within 1024..262144 @return this builder */
        public Builder maxInlineSend(int bytes) {
            maxInlineSend = inlineSize(MAX_INLINE_SEND, bytes);
            return this;
        }

        /** @param value 1..4096 @return this builder */
        public Builder credits(int value) {
            credits = CREDITS.check(value);
            return this;
        }

        /** @param value at least credits, at most 8192 @return this builder */
        public Builder receiveContexts(int value) {
            receiveContexts = RECEIVE_CONTEXTS.check(value);
            return this;
        }

        /** @param value 1..credits @return this builder */
        public Builder repostBatch(int value) {
            repostBatch = REPOST_BATCH.check(value);
            return this;
        }

        /** @param value 1..128 @return this builder */
        public Builder maxOutstandingReads(int value) {
            maxOutstandingReads = MAX_OUTSTANDING_READS.check(value);
            return this;
        }

        /** @param value 1..4096 @return this builder */
        public Builder sendBuffers(int value) {
            sendBuffers = SEND_BUFFERS.check(value);
            return this;
        }

        /** @param value see {@link TransportSetting#READ_SINK_COUNT} @return this builder */
        public Builder readSinkCount(int value) {
            readSinkCount = READ_SINK_COUNT.check(value);
            return this;
        }

        /** @param bytes 4..16 MiB, a multiple of 4 @return this builder */
        public Builder readSinkLength(int bytes) {
            readSinkLength = READ_SINK_LENGTH.check(bytes);
            if (!Xdr.isAligned(bytes)) {
                throw new IllegalArgumentException("readSinkLength must be a multiple of 4: " + bytes);
            }
            return this;
        }

        /** @param bytes a power of two within 64..1 MiB @return this builder */
        public Builder sinkPageSize(int bytes) {
            sinkPageSize = SINK_PAGE_SIZE.check(bytes);
            if (Integer.bitCount(bytes) != 1) {
                throw new IllegalArgumentException("sinkPageSize must be a power of two: " + bytes);
            }
            return this;
        }

        /** @param value 1..1024 @return this builder */
        public Builder completionBatch(int value) {
            completionBatch = COMPLETION_BATCH.check(value);
            return this;
        }

        /** @param bytes 64 KiB..1 GiB @return this builder */
        public Builder replyStagingBytes(int bytes) {
            replyStagingBytes = REPLY_STAGING_BYTES.check(bytes);
            return this;
        }

        /** @param value see {@link TransportSetting#COMPLETION_LOOPS} @return this builder */
        public Builder completionLoops(int value) {
            completionLoops = COMPLETION_LOOPS.check(value) == 0 ? defaultCompletionLoops() : value;
            return this;
        }

        /** @param seconds see {@link TransportSetting#STALL_TIMEOUT_SECONDS} @return this builder */
        public Builder stallTimeoutSeconds(int seconds) {
            stallTimeoutSeconds = STALL_TIMEOUT_SECONDS.check(seconds);
            return this;
        }

        /** @param micros see {@link TransportSetting#COMPLETION_SPIN_MICROS} @return this builder */
        public Builder completionSpinMicros(int micros) {
            completionSpinMicros = COMPLETION_SPIN_MICROS.check(micros);
            return this;
        }

        /**
         * @param value true (the default): each completion loop has a standby thread, and the
         *        loop thread that received a call at a caught-up loop runs it (decode, program,
         *        reply) while the standby takes over the completions, saving the hand-off to a
         *        worker; false: every call goes to a worker and the loop is one thread
         * @return this builder
         */
        public Builder loopRunsCalls(boolean value) {
            loopRunsCalls = value;
            return this;
        }

        /** @param micros see {@link TransportSetting#NEXT_CALL_SPIN_MICROS} @return this builder */
        public Builder nextCallSpinMicros(int micros) {
            nextCallSpinMicros = NEXT_CALL_SPIN_MICROS.check(micros);
            return this;
        }

        /** @param micros see {@link TransportSetting#CALL_TIME_SLICE_MICROS} @return this builder */
        public Builder callTimeSliceMicros(int micros) {
            callTimeSliceMicros = CALL_TIME_SLICE_MICROS.check(micros);
            return this;
        }

        /** @param value connections served at once, 1..65536; connect requests beyond are rejected @return this builder */
        public Builder maxConnections(int value) {
            maxConnections = MAX_CONNECTIONS.check(value);
            return this;
        }

        /** @param value 0..256 (0: no back channel) @return this builder */
        public Builder backchannelCredits(int value) {
            backchannelCredits = BACKCHANNEL_CREDITS.check(value);
            return this;
        }

        /** @param value the header limits @return this builder */
        public Builder limits(RpcRdmaLimits value) {
            limits = Objects.requireNonNull(value, "limits");
            return this;
        }

        /** @return the configuration */
        public TransportConfig build() {
            return new TransportConfig(this);
        }

        private static int inlineSize(TransportSetting setting, int bytes) {
            setting.check(bytes);
            if (bytes % INLINE_UNIT != 0) {
                throw new IllegalArgumentException(setting.property() + " must be a multiple of " + INLINE_UNIT + ": " + bytes);
            }
            return bytes;
        }
    }
}
