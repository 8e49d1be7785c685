package org.rpcrdma4j.transport;

import java.util.Objects;

import org.rpcrdma4j.codec.RpcRdmaLimits;

/**
 * TransportConfig - the settings of an {@link RdmaTransport}. Immutable; built with
 * {@link #builder()}; a bad value is an {@link IllegalArgumentException} naming the setting.
 *
 * <p>Defaults follow Linux's server (NOTES.md): 64 credits, 4096-byte inline receives, 16 READs
 * in flight per connection.
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

    /** Builder - collects settings; each setter checks its value at once. */
    public static final class Builder {
        private int inlineReceiveThreshold = 4096;
        private int maxInlineSend = 4096;
        private int credits = 64;
        private int receiveContexts;
        private int repostBatch = 8;
        private int maxOutstandingReads = 16;
        private int sendBuffers = 16;
        private int readSinkCount;
        private int readSinkLength = 256 * 1024;
        private int sinkPageSize = 4096;
        private int completionBatch = 32;
        private int replyStagingBytes = 24 << 20;
        private int completionLoops = defaultCompletionLoops();
        private int stallTimeoutSeconds = 30;
        private int completionSpinMicros;
        private boolean loopRunsCalls = true;
        private int nextCallSpinMicros = 50;
        private int callTimeSliceMicros = DEFAULT_CALL_TIME_SLICE_MICROS;
        private int maxConnections = 1024;
        private int backchannelCredits = 2;
        private RpcRdmaLimits limits = RpcRdmaLimits.DEFAULTS;

        private Builder() {
        }

        /** @param bytes a multiple of 1024 within 1024..262144 @return this builder */
        public Builder inlineReceiveThreshold(int bytes) {
            inlineReceiveThreshold = inlineSize("inlineReceiveThreshold", bytes);
            return this;
        }

        /** @param bytes a multiple of 1024 within 1024..262144 @return this builder */
        public Builder maxInlineSend(int bytes) {
            maxInlineSend = inlineSize("maxInlineSend", bytes);
            return this;
        }

        /** @param value 1..4096 @return this builder */
        public Builder credits(int value) {
            credits = range("credits", value, 1, 4096);
            return this;
        }

        /** @param value at least credits, at most 8192 @return this builder */
        public Builder receiveContexts(int value) {
            receiveContexts = range("receiveContexts", value, 1, 8192);
            return this;
        }

        /** @param value 1..credits @return this builder */
        public Builder repostBatch(int value) {
            repostBatch = range("repostBatch", value, 1, 4096);
            return this;
        }

        /** @param value 1..128 @return this builder */
        public Builder maxOutstandingReads(int value) {
            maxOutstandingReads = range("maxOutstandingReads", value, 1, 128);
            return this;
        }

        /** @param value 1..4096 @return this builder */
        public Builder sendBuffers(int value) {
            sendBuffers = range("sendBuffers", value, 1, 4096);
            return this;
        }

        /**
         * @param value READ sinks per completion loop, device and strategy, 1..65536; 0: as many as
         *        hold {@value TransportConfig#AUTO_READ_POOL_BYTES} bytes at the strategy's sink length
         * @return this builder
         */
        public Builder readSinkCount(int value) {
            readSinkCount = range("readSinkCount", value, 0, MAX_READ_SINKS);
            return this;
        }

        /** @param bytes 4..16 MiB, a multiple of 4 @return this builder */
        public Builder readSinkLength(int bytes) {
            readSinkLength = range("readSinkLength", bytes, 4, 16 << 20);
            if ((bytes & 3) != 0) {
                throw new IllegalArgumentException("readSinkLength must be a multiple of 4: " + bytes);
            }
            return this;
        }

        /** @param bytes a power of two within 64..1 MiB @return this builder */
        public Builder sinkPageSize(int bytes) {
            sinkPageSize = range("sinkPageSize", bytes, 64, 1 << 20);
            if (Integer.bitCount(bytes) != 1) {
                throw new IllegalArgumentException("sinkPageSize must be a power of two: " + bytes);
            }
            return this;
        }

        /** @param value 1..1024 @return this builder */
        public Builder completionBatch(int value) {
            completionBatch = range("completionBatch", value, 1, 1024);
            return this;
        }

        /** @param bytes 64 KiB..1 GiB @return this builder */
        public Builder replyStagingBytes(int bytes) {
            replyStagingBytes = range("replyStagingBytes", bytes, 64 << 10, 1 << 30);
            return this;
        }

        /**
         * @param value completion loops (threads) serving the connections, 1..64, or 0 for one per
         *        CPU at most {@value TransportConfig#DEFAULT_MAX_COMPLETION_LOOPS}; each loop has its
         *        own pools per device (READ sinks, reply staging), shared by its connections
         * @return this builder
         */
        public Builder completionLoops(int value) {
            completionLoops = range("completionLoops", value, 0, MAX_COMPLETION_LOOPS) == 0 ? defaultCompletionLoops() : value;
            return this;
        }

        /**
         * @param seconds how long work a connection posted (a reply SEND waiting on RNR, an RDMA
         *        READ or WRITE) may go without completing before the connection is closed and
         *        what it holds reclaimed, 1..3600
         * @return this builder
         */
        public Builder stallTimeoutSeconds(int seconds) {
            stallTimeoutSeconds = range("stallTimeoutSeconds", seconds, 1, 3600);
            return this;
        }

        /**
         * @param micros how long a completion loop keeps polling after a pass found no work
         *        before it sleeps on its completion channel, 0..{@value #MAX_COMPLETION_SPIN_MICROS}:
         *        a call arriving within it is taken without a wake-up (which costs tens of
         *        microseconds between CPUs), for up to this much CPU per idle gap; 0 sleeps at once
         * @return this builder
         */
        public Builder completionSpinMicros(int micros) {
            completionSpinMicros = range("completionSpinMicros", micros, 0, MAX_COMPLETION_SPIN_MICROS);
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

        /**
         * @param micros 0..{@value #MAX_COMPLETION_SPIN_MICROS}, default 50 (0: never spin): with
         *        {@link #loopRunsCalls}, when the loop thread took every call a wake-up of a loop
         *        brought to run itself (a client calling one at a time, or sending a batch: it
         *        waits for these replies before it sends again), the loop polls this long for the
         *        next call before it sleeps, so it comes in without a wake-up. Adaptive: after
         *        spins that found no call the loop stops spinning and only tries again now and
         *        then, so a client that pauses between calls costs no CPU in spins; under load
         *        (calls going to the workers) it never spins, leaving the CPUs to the calls
         * @return this builder
         */
        public Builder nextCallSpinMicros(int micros) {
            nextCallSpinMicros = range("nextCallSpinMicros", micros, 0, MAX_COMPLETION_SPIN_MICROS);
            return this;
        }

        /**
         * @param micros 0..{@value #MAX_CALL_TIME_SLICE_MICROS}, default
         *        {@value #DEFAULT_CALL_TIME_SLICE_MICROS}: with {@link #loopRunsCalls}, how long the
         *        loop thread may run a call it kept before the loop's standby takes the loop over.
         *        While calls are kept at least twice per slice the standby checks this often (a
         *        watch costs a timed wake-up per slice and saves one per kept call; at most 1,000
         *        timed wake-ups a second at the default; none once no call was kept for 20
         *        slices), so the thread
         *        runs the call without waking the standby and takes the loop back after it: a
         *        lone call costs no wake-up of the crew, and the thread runs up to 16 calls of a
         *        wake-up in a row (while 16 calls as long as the recent ones take under a quarter
         *        slice). A call that blocks holds the loop's other connections, and the
         *        calls kept behind it, for up to about two slices; then the standby takes over
         *        and sends those calls to the workers. 0: the standby is woken before every such
         *        call (one more wake-up per call, no delay for the other connections)
         * @return this builder
         */
        public Builder callTimeSliceMicros(int micros) {
            callTimeSliceMicros = range("callTimeSliceMicros", micros, 0, MAX_CALL_TIME_SLICE_MICROS);
            return this;
        }

        /** @param value connections served at once, 1..65536; connect requests beyond are rejected @return this builder */
        public Builder maxConnections(int value) {
            maxConnections = range("maxConnections", value, 1, 65536);
            return this;
        }

        /** @param value 0..256 (0: no back channel) @return this builder */
        public Builder backchannelCredits(int value) {
            backchannelCredits = range("backchannelCredits", value, 0, 256);
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

        private static int inlineSize(String name, int bytes) {
            range(name, bytes, INLINE_UNIT, MAX_INLINE);
            if (bytes % INLINE_UNIT != 0) {
                throw new IllegalArgumentException(name + " must be a multiple of " + INLINE_UNIT + ": " + bytes);
            }
            return bytes;
        }

        private static int range(String name, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " must be within " + min + ".." + max + ": " + value);
            }
            return value;
        }
    }
}
