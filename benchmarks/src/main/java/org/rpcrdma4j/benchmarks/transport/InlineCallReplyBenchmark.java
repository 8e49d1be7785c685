package org.rpcrdma4j.benchmarks.transport;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * Inline call to reply posted, through the transport's own API: the client's SEND lands in a
 * posted receive buffer, the completion loop decodes the header and hands the call on, the
 * handler reads the body's first word, detaches the reply, encodes a 24-byte accepted SUCCESS
 * reply into the pending reply's own buffer, sends it and releases the call; the transport
 * frames and posts the reply inline, the client receives it (checking its xid) and reposts.
 * {@value #BATCH} calls per invocation. Target (issue #13): 0 B/op under {@code -prof gc},
 * client and fabric included.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
public class InlineCallReplyBenchmark {
    static final int BATCH = 16;
    /** RFC 5531: REPLY, MSG_ACCEPTED, AUTH_NONE verifier of length 0, SUCCESS. */
    private static final int[] ACCEPTED_SUCCESS = {1, 0, 0, 0, 0};

    @Param({"200"})
    int inlineBytes;

    private TransportBench bench;
    private Blackhole sink;
    private int delivered;

    @Setup(Level.Trial)
    public void setUp(Blackhole blackhole) throws Exception {
        sink = blackhole;
        bench = new TransportBench(TransportConfig.DEFAULTS, this::onCall, "lkey", inlineBytes, 0);
    }

    private void onCall(ReceivedCall call) {
        ByteBuffer first = call.body().get(0);
        sink.consume(first.getInt(first.position()));
        PendingReply reply = call.detachReply();
        ByteBuffer message = reply.replyBuffer();
        message.putInt(reply.xid());
        for (int word : ACCEPTED_SUCCESS) {
            message.putInt(word);
        }
        reply.send(message.flip(), -1);
        delivered++;
        call.release();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        bench.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long replyInlineCalls() throws Exception {
        long replies = bench.client.replies();
        for (int i = 0; i < BATCH; i++) {
            bench.client.sendCall();
        }
        int before = delivered;
        bench.settle();
        if (delivered - before != BATCH || bench.client.replies() - replies != BATCH) {
            throw new IllegalStateException("delivered " + (delivered - before) + " and got "
                    + (bench.client.replies() - replies) + " replies of " + BATCH);
        }
        return bench.client.replies();
    }
}
