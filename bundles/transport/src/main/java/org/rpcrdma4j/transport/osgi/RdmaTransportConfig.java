package org.rpcrdma4j.transport.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;

/**
 * RdmaTransportConfig - the metatype of PID {@code org.rpcrdma4j.transport}: every setting with
 * its safe default; {@link TransportSettings#of} checks each value and names the one it refuses.
 */
@ObjectClassDefinition(name = "rpcrdma4j RPC-over-RDMA transport",
        description = "The RPC-over-RDMA (RFC 8166) transport serving every program of the host server")
public @interface RdmaTransportConfig {
    @AttributeDefinition(name = "Enabled", description = "Serve RPC-over-RDMA at all.")
    boolean enabled() default true;

    @AttributeDefinition(name = "Verbs provider",
            description = "Name of the verbs provider to serve over: 'auto' (DiSNI when it is installed, rdma-core loads "
                    + "and an RDMA device has an IPv4 address, else loopback; the log says which and why), 'loopback' "
                    + "(in-JVM, for tests and hardware-less runs) or 'disni' (RDMA NICs and soft-RoCE/soft-iWARP through "
                    + "libibverbs).")
    String provider() default ProviderChoice.AUTO;

    @AttributeDefinition(name = "Bind address",
            description = "Local IP address to listen on (an address of an RDMA device for DiSNI); 0.0.0.0 for every IPv4 address.")
    String bindAddress() default "0.0.0.0";

    @AttributeDefinition(name = "Port", min = "0", max = "65535",
            description = "Port to listen on; 20049 is NFS over RDMA (RFC 8267); 0 picks a free port.")
    int port() default RdmaHostedTransport.DEFAULT_PORT;

    @AttributeDefinition(name = "Credits", min = "1", max = "4096",
            description = "Receives posted per connection, and the credits granted in every reply (Linux: 64).")
    int credits() default 64;

    @AttributeDefinition(name = "Inline receive threshold", min = "1024", max = "262144",
            description = "Bytes of each receive buffer, advertised to clients as our receive size (multiple of 1024).")
    int inlineReceiveThreshold() default 4096;

    @AttributeDefinition(name = "Largest inline send", min = "1024", max = "262144",
            description = "Most bytes of a reply sent inline, whatever larger size the client may receive (multiple of 1024).")
    int maxInlineSend() default 4096;

    @AttributeDefinition(name = "Outstanding READs (ORD)", min = "1", max = "128",
            description = "RDMA READs in flight per connection at most, also capped by the device (Linux: 16).")
    int maxOutstandingReads() default 16;

    @AttributeDefinition(name = "Send buffers", min = "1", max = "4096",
            description = "Registered send buffers per connection, each with 4 KiB more for its reply's DDP item "
                    + "(a 4 KiB READ's data): replies in flight beyond this wait.")
    int sendBuffers() default 16;

    @AttributeDefinition(name = "Backchannel credits", min = "0", max = "256",
            description = "Backward-direction calls (RFC 8167: server to client on the same connection, e.g. NFSv4.1 "
                    + "callbacks) outstanding per connection at most, whatever the client grants; as many receives are "
                    + "posted beyond the credits for the client's replies (Linux: 2). 0 turns the back channel off: "
                    + "every callback then fails at once.")
    int backchannelCredits() default 2;

    @AttributeDefinition(name = "READ sinks", min = "0", max = "65536",
            description = "READ sinks per completion loop, device and registration strategy; 0: as many as hold 24 MiB at the "
                    + "strategy's sink length. Shared by the loop's connections: each holds at most what its credits justify, "
                    + "at most three quarters of the pool, and an equal part of it while others use it; calls with read "
                    + "chunks beyond wait.")
    int readSinkCount() default 0;

    @AttributeDefinition(name = "READ sink length", min = "4", max = "16777216",
            description = "Most bytes one READ sink holds (multiple of 4).")
    int readSinkLength() default 262144;

    @AttributeDefinition(name = "Reply staging bytes", min = "65536", max = "1073741824",
            description = "Registered memory per completion loop and device that RDMA WRITE reply data (write and reply "
                    + "chunks) is staged in (replies of 32 KiB and more, such as large NFS READs, are encoded straight into "
                    + "it, held from encoding until their SEND completes); bounds the largest reply. Shared by the loop's "
                    + "connections like the READ sinks "
                    + "(each at most three quarters, an equal part while others use it). Carved in 64-byte units: a value "
                    + "that is not a multiple of 64 is used rounded down.")
    int replyStagingBytes() default 25165824;

    @AttributeDefinition(name = "Completion loops", min = "0", max = "64",
            description = "Threads that serve the RPC-over-RDMA connections, each sleeping on its completion channel when "
                    + "idle; connections are spread over them, and each loop has its own READ sinks and reply staging per "
                    + "device (readSinkCount, replyStagingBytes). 0: one per CPU, at most 8.")
    int completionLoops() default 0;

    @AttributeDefinition(name = "Stall timeout (s)", min = "1", max = "3600",
            description = "How long a connection's posted work (a reply SEND the client does not take, an RDMA READ or "
                    + "WRITE) may go without any completion before the connection is closed and what it holds reclaimed; also "
                    + "how long a closing connection waits for its work to flush before its queue pair is destroyed and the "
                    + "work reclaimed (devices such as Soft-iWARP of Linux 6.1 lose those flushes).")
    int stallTimeoutSeconds() default 30;

    @AttributeDefinition(name = "Completion spin (us)", min = "0", max = "1000",
            description = "How long a completion loop keeps polling its connections' completion queues after a pass found "
                    + "nothing, before it sleeps on its completion channel. Calls that arrive within it are taken without a "
                    + "wake-up (lower latency for one client's back-to-back calls), for up to this much CPU per idle gap. "
                    + "0 (the default): sleep at once, the least CPU.")
    int completionSpinMicros() default 0;

    @AttributeDefinition(name = "Loop runs calls",
            description = "true (the default): each completion loop has a standby thread, and when a call reaches a loop "
                    + "that had caught up, the loop thread that received it runs it (decode, program, reply) while the standby "
                    + "takes over the completions (leader/followers): no hand-off to a worker for that call; under sustained "
                    + "load the leader keeps polling and calls go to workers. A call that blocks holds only its own thread; while neither "
                    + "thread stands by, calls go to the host's workers. false: every call goes to a worker, one thread per loop.")
    boolean loopRunsCalls() default true;

    @AttributeDefinition(name = "Next-call spin (us)", min = "0", max = "1000",
            description = "With loopRunsCalls: when the loop thread took every call a wake-up of a completion loop brought "
                    + "to run itself (a client calling one at a time, or sending a batch, which sends its next calls as soon "
                    + "as it has these replies), the loop polls this long for the next call before it sleeps, so the call "
                    + "comes in without a wake-up. Adaptive: spins that find no call make the loop stop spinning (it then "
                    + "tries one such wake-up in 16), and under load (calls going to the workers) it never spins. 0: never. "
                    + "Default 50.")
    int nextCallSpinMicros() default 50;

    @AttributeDefinition(name = "Call time slice (us)", min = "0", max = "100000",
            description = "With loopRunsCalls: how long a completion-loop thread may run a call it kept before the loop's "
                    + "standby takes the loop over. While calls are kept at least twice per slice the standby checks this often (at most 1,000 timed "
                    + "wake-ups a second at the default, none once no call was kept for 20 slices), so the thread runs the "
                    + "call without waking the standby and takes the loop back after it: a lone call costs no wake-up of the "
                    + "loop's threads, and the thread runs up to 16 calls of one wake-up in a row (while 16 such calls take "
                    + "under a quarter slice). A call that blocks holds "
                    + "the loop's other connections, and the calls kept behind it, for up to about two slices; then the "
                    + "standby takes over and sends those calls to the workers. 0: the standby is woken before every such "
                    + "call. Default 1000.")
    int callTimeSliceMicros() default 1000;

    @AttributeDefinition(name = "Max connections", min = "1", max = "65536",
            description = "RPC-over-RDMA connections served at once; connect requests beyond are rejected (and logged).")
    int maxConnections() default 1024;

    @AttributeDefinition(name = "Max read segments", min = "1", max = "1024",
            description = "Validation: most segments in a call's read list.")
    int maxReadSegments() default 64;

    @AttributeDefinition(name = "Max read chunks", min = "1", max = "1024",
            description = "Validation: most read chunks (distinct positions) in a call.")
    int maxReadChunks() default 8;

    @AttributeDefinition(name = "Max write chunks", min = "1", max = "1024",
            description = "Validation: most write chunks in a call's write list.")
    int maxWriteChunks() default 4;

    @AttributeDefinition(name = "Max segments per chunk", min = "1", max = "1024",
            description = "Validation: most segments in one write chunk or the reply chunk.")
    int maxSegmentsPerChunk() default 64;

    @AttributeDefinition(name = "Max read bytes", min = "1", max = "1099511627776",
            description = "Validation: most bytes of read chunk data one call may carry (at most 1 TiB).")
    long maxReadBytes() default 16777216L;

    @AttributeDefinition(name = "Active registration strategy",
            description = "Name of the strategy READs use ('lkey' or 'frmr'); when it is not registered the first one "
                    + "registered is used until it is. Changing only this switches in place, without a restart.")
    String activeStrategy() default "lkey";

    @AttributeDefinition(name = "Reply cache entries", min = "0", max = "1000000",
            description = "Calls the duplicate request cache remembers per transport; 0 disables it.")
    int replyCacheEntries() default 1024;

    @AttributeDefinition(name = "Reply cache: longest reply", min = "0", max = "1048576",
            description = "Longest reply the cache keeps; a retransmission of a call with a longer reply runs again.")
    int replyCacheMaxReplyBytes() default 8192;
}
