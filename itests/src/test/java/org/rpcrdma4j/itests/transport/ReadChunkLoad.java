package org.rpcrdma4j.itests.transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;

/**
 * A concurrent load of ECHO calls whose argument travels in a read chunk, so every call makes
 * the server RDMA READ with its active registration strategy: {@code threads} threads share one
 * client and each sends calls one after the other, argument sizes 1..{@value #MAX_ARGUMENT}
 * bytes of a pattern unique to the call, until {@link #stop} is called. A reply that is not
 * byte for byte the expected one, and a call that fails or times out, is recorded as a failure
 * and ends its thread.
 */
final class ReadChunkLoad {
    /** Largest argument: its echo still fits an inline reply (4096 bytes). */
    static final int MAX_ARGUMENT = 3000;
    private static final int XIDS_PER_THREAD = 1 << 20;

    private final RpcRdmaClient client;
    private final Duration callTimeout;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong answered = new AtomicLong();
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopping;

    /** Starts the threads ("itest-load-N"); the caller MUST {@link #stop} them. */
    ReadChunkLoad(RpcRdmaClient client, int threadCount, Duration callTimeout) {
        this.client = client;
        this.callTimeout = callTimeout;
        for (int t = 0; t < threadCount; t++) {
            int index = t;
            Thread thread = new Thread(() -> run(index), "itest-load-" + t);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    /** @return calls answered byte-exact so far */
    long answered() {
        return answered.get();
    }

    /** @return the failures so far (a snapshot) */
    List<String> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /**
     * Lets every thread finish its current call and waits for them.
     *
     * @return the failures, empty when every call was answered byte-exact
     */
    List<String> stop() throws InterruptedException {
        stopping = true;
        long deadline = System.nanoTime() + 2 * callTimeout.toNanos();
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (thread.isAlive()) {
                failures.add(thread.getName() + " still in a call after " + 2 * callTimeout.toSeconds() + " s");
            }
        }
        return failures();
    }

    private void run(int thread) {
        for (int i = 0; !stopping; i++) {
            int xid = (thread + 1) * XIDS_PER_THREAD + i;
            int length = 1 + (i * 97 + thread * 13) % MAX_ARGUMENT;
            byte[] data = EchoWire.pattern(xid, length);
            try {
                RpcReply reply = client.call(EchoWire.echoWithReadChunk(xid, data), callTimeout);
                byte[] body = EchoWire.bytes(reply.body());
                if (!Arrays.equals(EchoWire.echoReply(xid, data), body)) {
                    failures.add("xid " + xid + " (" + length + " bytes): reply differs: " + Arrays.toString(
                            Arrays.copyOf(body, Math.min(body.length, 32))) + "...");
                    return;
                }
                answered.incrementAndGet();
            } catch (Exception e) {
                failures.add("xid " + xid + " (" + length + " bytes): " + e);
                return;
            }
        }
    }
}
