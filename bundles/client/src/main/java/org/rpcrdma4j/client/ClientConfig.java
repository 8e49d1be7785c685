package org.rpcrdma4j.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link RpcRdmaClient} connects and sends: its inline sizes (advertised in RFC 8797
 * private data), its credit limit, segment size, and the switches tests use.
 *
 * <p>Immutable; built with {@link #builder()}. Bad values are {@link IllegalArgumentException}s
 * naming the property.
 */
public final class ClientConfig {
    /** Smallest inline size RFC 8797 can express (one 1 KiB unit). */
    public static final int MIN_INLINE_SIZE = 1024;
    /** Largest inline size RFC 8797 can express (256 units of 1 KiB). */
    public static final int MAX_INLINE_SIZE = 256 * 1024;
    /** Most credits (receives posted, calls outstanding) one client asks for. */
    public static final int MAX_CREDITS = 1024;

    private final int receiveInlineSize;
    private final int sendInlineSize;
    private final int maxCredits;
    private final int maxSegmentLength;
    private final boolean remoteInvalidation;
    private final boolean advertisePrivateData;
    private final boolean enforceCredits;
    private final boolean progressThread;
    private final int spinMicros;
    private final Duration connectTimeout;
    private final BackwardCallHandler backchannelHandler;
    private final int backchannelCredits;

    private ClientConfig(Builder b) {
        receiveInlineSize = b.receiveInlineSize;
        sendInlineSize = b.sendInlineSize;
        maxCredits = b.maxCredits;
        backchannelHandler = b.backchannelHandler;
        backchannelCredits = b.backchannelHandler == null ? 0 : b.backchannelCredits;
        maxSegmentLength = b.maxSegmentLength;
        remoteInvalidation = b.remoteInvalidation;
        advertisePrivateData = b.advertisePrivateData;
        enforceCredits = b.enforceCredits;
        progressThread = b.progressThread;
        spinMicros = b.spinMicros;
        connectTimeout = b.connectTimeout;
    }

    /** @return a builder with the defaults: 4096 bytes each way, 32 credits, 1 MiB segments */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the defaults */
    public static ClientConfig defaults() {
        return builder().build();
    }

    /** @return the size of each posted receive buffer, advertised as our receive size */
    public int receiveInlineSize() {
        return receiveInlineSize;
    }

    /** @return the largest message this client sends inline, advertised as our send size */
    public int sendInlineSize() {
        return sendInlineSize;
    }

    /** @return receives posted, credits requested, and the most calls ever outstanding */
    public int maxCredits() {
        return maxCredits;
    }

    /** @return the longest RDMA segment advertised; longer chunks are split into several */
    public int maxSegmentLength() {
        return maxSegmentLength;
    }

    /** @return whether remote invalidation is offered (fast-registered chunks, where the device can) */
    public boolean remoteInvalidation() {
        return remoteInvalidation;
    }

    /** @return whether the connect request carries RFC 8797 private data at all */
    public boolean advertisePrivateData() {
        return advertisePrivateData;
    }

    /** @return whether calls wait for the server's credit grant (false only to test overruns) */
    public boolean enforceCredits() {
        return enforceCredits;
    }

    /** @return whether the client runs its own completion thread */
    public boolean progressThread() {
        return progressThread;
    }

    /**
     * @return how long a thread making progress keeps polling the completion queue after finding
     *         nothing, before it sleeps on the queue's notification, in microseconds (0: at once)
     */
    public int spinMicros() {
        return spinMicros;
    }

    /** @return how long address resolution may take, and the blocking connect waits */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** @return the callback program for backward calls (RFC 8167), or null when the client takes none */
    public BackwardCallHandler backchannelHandler() {
        return backchannelHandler;
    }

    /**
     * @return backward calls the client takes at once: the extra receives it posts and the
     *         backward credits it grants in every backward reply (0 without a handler)
     */
    public int backchannelCredits() {
        return backchannelCredits;
    }

    @Override
    public String toString() {
        return "ClientConfig[backchannelCredits=" + backchannelCredits + ", receive=" + receiveInlineSize + ", send=" + sendInlineSize + ", credits=" + maxCredits
                + ", segment=" + maxSegmentLength + ", remoteInvalidation=" + remoteInvalidation
                + ", privateData=" + advertisePrivateData + ", enforceCredits=" + enforceCredits
                + ", progressThread=" + progressThread + ", spinMicros=" + spinMicros + ", connectTimeout=" + connectTimeout + "]";
    }

    /** Builds a {@link ClientConfig}. Not thread-safe. */
    public static final class Builder {
        private int receiveInlineSize = 4096;
        private int sendInlineSize = 4096;
        private int maxCredits = 32;
        private int maxSegmentLength = 1 << 20;
        private boolean remoteInvalidation;
        private boolean advertisePrivateData = true;
        private boolean enforceCredits = true;
        private boolean progressThread;
        private int spinMicros;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private BackwardCallHandler backchannelHandler;
        private int backchannelCredits;

        private Builder() {
        }

        /**
         * Accepts backward calls (RFC 8167: the server calling this client on the same connection,
         * e.g. NFSv4.1 callbacks) and answers them with {@code handler} on callback threads. The
         * client posts {@code credits} receives beyond its forward ones for them, grants
         * {@code credits} backward credits in each backward reply, and answers at most that many
         * at once.
         *
         * @param handler the callback program
         * @param credits backward calls taken at once, 1..{@value #MAX_CREDITS}
         * @return this builder
         */
        public Builder backchannel(BackwardCallHandler handler, int credits) {
            Objects.requireNonNull(handler, "handler");
            if (credits < 1 || credits > MAX_CREDITS) {
                throw new IllegalArgumentException("backchannel credits must be within 1.." + MAX_CREDITS + ": " + credits);
            }
            this.backchannelHandler = handler;
            this.backchannelCredits = credits;
            return this;
        }

        /**
         * @param size receive buffer size: a multiple of 1024 within 1024..262144 (RFC 8797 units)
         * @return this builder
         */
        public Builder receiveInlineSize(int size) {
            this.receiveInlineSize = inlineSize("receiveInlineSize", size);
            return this;
        }

        /**
         * @param size largest inline send: a multiple of 1024 within 1024..262144
         * @return this builder
         */
        public Builder sendInlineSize(int size) {
            this.sendInlineSize = inlineSize("sendInlineSize", size);
            return this;
        }

        /**
         * @param credits receives to post and credits to request, 1..{@value #MAX_CREDITS}
         * @return this builder
         */
        public Builder maxCredits(int credits) {
            if (credits < 1 || credits > MAX_CREDITS) {
                throw new IllegalArgumentException("maxCredits must be within 1.." + MAX_CREDITS + ": " + credits);
            }
            this.maxCredits = credits;
            return this;
        }

        /**
         * @param length the longest segment to advertise, positive
         * @return this builder
         */
        public Builder maxSegmentLength(int length) {
            if (length < 1) {
                throw new IllegalArgumentException("maxSegmentLength must be positive: " + length);
            }
            this.maxSegmentLength = length;
            return this;
        }

        /**
         * Lets the server invalidate chunk keys with Send With Invalidate (the RFC 8797 flag).
         * Only fast-registration keys can be invalidated remotely, so with this set the client
         * fast-registers every chunk (a REG_MR before each SEND, at most 8 chunks per call) where
         * the device supports it, and advertises the flag only then.
         *
         * @param allowed whether to offer remote invalidation
         * @return this builder
         */
        public Builder remoteInvalidation(boolean allowed) {
            this.remoteInvalidation = allowed;
            return this;
        }

        /**
         * @param advertise false to connect without private data (the server then assumes 1024
         *        bytes each way)
         * @return this builder
         */
        public Builder advertisePrivateData(boolean advertise) {
            this.advertisePrivateData = advertise;
            return this;
        }

        /**
         * @param enforce false lets calls go out without waiting for credits, up to
         *        {@link #maxCredits(int)}; only for tests of a server's overrun handling
         * @return this builder
         */
        public Builder enforceCredits(boolean enforce) {
            this.enforceCredits = enforce;
            return this;
        }

        /**
         * @param run true to start one completion thread per client; false (the default) leaves
         *        progress to {@link RpcRdmaClient#doWork()} and the blocking helpers
         * @return this builder
         */
        public Builder progressThread(boolean run) {
            this.progressThread = run;
            return this;
        }

        /**
         * @param micros how long the thread making progress (the progress thread, or a caller
         *        waiting in {@link RpcRdmaClient#await}) keeps polling after finding nothing before
         *        it sleeps on the completion queue's notification, 0..1000: a reply arriving within
         *        it is taken without a wake-up, for up to this much CPU per wait; 0 (the default)
         *        sleeps at once
         * @return this builder
         */
        public Builder spinMicros(int micros) {
            if (micros < 0 || micros > 1000) {
                throw new IllegalArgumentException("spinMicros must be within 0..1000: " + micros);
            }
            this.spinMicros = micros;
            return this;
        }

        /**
         * @param timeout address resolution and blocking connect timeout, positive
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "connectTimeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("connectTimeout must be positive: " + timeout);
            }
            this.connectTimeout = timeout;
            return this;
        }

        /** @return the configuration */
        public ClientConfig build() {
            return new ClientConfig(this);
        }

        private static int inlineSize(String name, int size) {
            if (size < MIN_INLINE_SIZE || size > MAX_INLINE_SIZE || size % MIN_INLINE_SIZE != 0) {
                throw new IllegalArgumentException(name + " must be a multiple of 1024 within " + MIN_INLINE_SIZE + ".."
                        + MAX_INLINE_SIZE + ": " + size);
            }
            return size;
        }
    }
}
