package org.rpcrdma4j.transport;

/**
 * TransportSetting - the whole-number settings of a {@link TransportConfig}, each defined once: its
 * property name (as in {@code etc/org.rpcrdma4j.transport.cfg}), its default and its range, and
 * (in the javadoc of its row) what it means. {@link TransportConfig.Builder} takes its defaults
 * from here and checks every value against its row; the OSGi metatype of the transport's
 * component, whose annotations can hold only constants, is checked against this table by a test.
 */
public enum TransportSetting {
    /** Bytes of each receive buffer, advertised in RFC 8797 private data as our receive size; a multiple of 1024. */
    INLINE_RECEIVE_THRESHOLD("inlineReceiveThreshold", 4096, TransportConfig.INLINE_UNIT, TransportConfig.MAX_INLINE),
    /** Most bytes of a reply sent inline, whatever larger size the client may receive; a multiple of 1024. */
    MAX_INLINE_SEND("maxInlineSend", 4096, TransportConfig.INLINE_UNIT, TransportConfig.MAX_INLINE),
    /** Receives posted per connection, and the credits granted in every reply (Linux: 64). */
    CREDITS("credits", 64, 1, 4096),
    /** Receive contexts per connection, posted or held by calls; at least credits plus backchannelCredits (0: twice the credits plus those). */
    RECEIVE_CONTEXTS("receiveContexts", 0, 1, 8192),
    /** Free receive contexts gathered before they are reposted in one chain; at most the credits. */
    REPOST_BATCH("repostBatch", 8, 1, 4096),
    /** RDMA READs in flight per connection at most (ORD), also capped by the device (Linux: 16). */
    MAX_OUTSTANDING_READS("maxOutstandingReads", 16, 1, 128),
    /**
     * Registered send buffers per connection, each followed by 4 KiB for its reply's DDP item when
     * that is a page or less; replies in flight beyond wait in order.
     */
    SEND_BUFFERS("sendBuffers", 16, 1, 4096),
    /**
     * READ sinks per completion loop, device and strategy; 0: as many as hold
     * {@value TransportConfig#AUTO_READ_POOL_BYTES} bytes at the sink length the strategy chooses.
     */
    READ_SINK_COUNT("readSinkCount", 0, 0, TransportConfig.MAX_READ_SINKS),
    /** Most bytes one READ sink holds; a multiple of 4. */
    READ_SINK_LENGTH("readSinkLength", 256 * 1024, 4, 16 << 20),
    /** Span of one SGE into pooled sink memory; a power of two. */
    SINK_PAGE_SIZE("sinkPageSize", 4096, 64, 1 << 20),
    /** Completions taken per poll. */
    COMPLETION_BATCH("completionBatch", 32, 1, 1024),
    /**
     * Registered memory per completion loop and device that replies' RDMA WRITE data (write chunk
     * and reply chunk) is staged in; bounds the largest reply and the data in flight (24 MiB: 16 x
     * 1 MiB replies of one client fit within its share of three quarters).
     */
    REPLY_STAGING_BYTES("replyStagingBytes", 24 << 20, 64 << 10, 1 << 30),
    /**
     * Completion loops serving the connections; 0: one per CPU, at most
     * {@value TransportConfig#DEFAULT_MAX_COMPLETION_LOOPS}. Each loop has its own pools per device
     * (READ sinks, reply staging), shared by its connections.
     */
    COMPLETION_LOOPS("completionLoops", 0, 0, TransportConfig.MAX_COMPLETION_LOOPS),
    /**
     * How long work a connection posted (a reply SEND waiting on RNR, an RDMA READ or WRITE) may go
     * without completing before the connection is closed and what it holds reclaimed, in seconds.
     */
    STALL_TIMEOUT_SECONDS("stallTimeoutSeconds", 30, 1, 3600),
    /**
     * How long a completion loop keeps polling after a pass found no work before it sleeps on its
     * completion channel, in microseconds: a call arriving within it is taken without a wake-up
     * (which costs tens of microseconds between CPUs), for up to this much CPU per idle gap; 0
     * sleeps at once.
     */
    COMPLETION_SPIN_MICROS("completionSpinMicros", 0, 0, TransportConfig.MAX_COMPLETION_SPIN_MICROS),
    /**
     * With {@code loopRunsCalls}, when the loop thread took every call a wake-up of a loop brought
     * to run itself (a client calling one at a time, or sending a batch: it waits for these replies
     * before it sends again), the loop polls this long for the next call before it sleeps, so it
     * comes in without a wake-up; in microseconds, 0: never spin. Adaptive: after spins that found
     * no call the loop stops spinning and only tries again now and then, so a client that pauses
     * between calls costs no CPU in spins; under load (calls going to the workers) it never spins,
     * leaving the CPUs to the calls.
     */
    NEXT_CALL_SPIN_MICROS("nextCallSpinMicros", 50, 0, TransportConfig.MAX_COMPLETION_SPIN_MICROS),
    /**
     * With {@code loopRunsCalls}, how long the loop thread may run a call it kept before the loop's
     * standby takes the loop over, in microseconds. While calls are kept at least twice per slice
     * the standby checks this often (a watch costs a timed wake-up per slice and saves one per kept
     * call; at most 1,000 timed wake-ups a second at the default; none once no call was kept for
     * 20 slices), so the thread runs the call without waking the standby and takes the loop back
     * after it: a lone call costs no wake-up of the crew, and the thread runs up to 16 calls of a
     * wake-up in a row (while 16 calls as long as the recent ones take under a quarter slice). A
     * call that blocks holds the loop's other connections, and the calls kept behind it, for up to
     * about two slices; then the standby takes over and sends those calls to the workers. 0: the
     * standby is woken before every such call (one more wake-up per call, no delay for the other
     * connections).
     */
    CALL_TIME_SLICE_MICROS("callTimeSliceMicros", TransportConfig.DEFAULT_CALL_TIME_SLICE_MICROS, 0,
            TransportConfig.MAX_CALL_TIME_SLICE_MICROS),
    /** Connections served at once; connect requests beyond are rejected. */
    MAX_CONNECTIONS("maxConnections", 1024, 1, 65536),
    /**
     * Backward-direction calls (RFC 8167: server to client, e.g. NFSv4.1 callbacks) outstanding per
     * connection at most, whatever the client grants; as many receives are posted beyond the
     * credits for the client's replies (Linux: sc_max_bc_requests, 2). 0 turns the back channel
     * off: every backward call fails at once.
     */
    BACKCHANNEL_CREDITS("backchannelCredits", 2, 0, 256);

    private final String property;
    private final int defaultValue;
    private final int min;
    private final int max;

    TransportSetting(String property, int defaultValue, int min, int max) {
        this.property = property;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
    }

    /** @return the setting's name: its builder method and its configuration property */
    public String property() {
        return property;
    }

    /** @return the default; for receiveContexts and completionLoops 0, which stands for a value derived as their rows say */
    public int defaultValue() {
        return defaultValue;
    }

    public int min() {
        return min;
    }

    public int max() {
        return max;
    }

    /**
     * check() - a value for this setting.
     *
     * @return {@code value}
     * @throws IllegalArgumentException naming the setting, its range and the value, when out of range
     */
    public int check(int value) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(property + " must be within " + min + ".." + max + ": " + value);
        }
        return value;
    }
}
