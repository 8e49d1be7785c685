package org.rpcrdma4j.itests.transport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.MalformedReplyException;
import org.rpcrdma4j.client.RdmaErrorException;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * A concurrent load of ECHO calls with read chunks (as {@link ReadChunkLoad}) from clients that
 * behave like the Linux NFS client across a server restart: each thread has its own connection;
 * when a call's connection goes away (or a call times out on it), the thread reconnects to the
 * server's current address and retransmits the same call (same xid). What counts as a failure:
 * a reply that is not the byte-exact echo, an RDMA_ERROR or malformed reply (the server answered
 * wrongly), or a call that gets no answer within {@link #GIVE_UP} of reconnecting.
 */
final class ReconnectingLoad {
    /** How long one call may keep retrying across reconnects. */
    static final Duration GIVE_UP = Duration.ofSeconds(60);
    private static final int XIDS_PER_THREAD = 1 << 20;

    private final Supplier<InetSocketAddress> server;
    private final Supplier<VerbsProvider> provider;
    private final Duration callTimeout;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong reconnects = new AtomicLong();
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private final List<String> reconnectCauses = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopping;
    private volatile String lastConnectError;

    /**
     * Starts the threads ("itest-reconnecting-N"); the caller MUST {@link #stop} them.
     *
     * @param server the server's current RDMA address, null while none listens
     * @param provider the verbs provider to connect through
     */
    ReconnectingLoad(Supplier<InetSocketAddress> server, Supplier<VerbsProvider> provider, int threadCount, Duration callTimeout) {
        this.server = server;
        this.provider = provider;
        this.callTimeout = callTimeout;
        for (int t = 0; t < threadCount; t++) {
            int index = t;
            Thread thread = new Thread(() -> run(index), "itest-reconnecting-" + t);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    long answered() {
        return answered.get();
    }

    long reconnects() {
        return reconnects.get();
    }

    /** @return why connections were given up (one line each, a snapshot) */
    List<String> reconnectCauses() {
        synchronized (reconnectCauses) {
            return List.copyOf(reconnectCauses);
        }
    }

    List<String> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /** Lets every thread finish its current call and waits for them; @return the failures */
    List<String> stop() throws InterruptedException {
        stopping = true;
        long deadline = System.nanoTime() + GIVE_UP.toNanos() + 2 * callTimeout.toNanos();
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (thread.isAlive()) {
                failures.add(thread.getName() + " still in a call");
                thread.interrupt();
            }
        }
        return failures();
    }

    private void run(int thread) {
        RpcRdmaClient client = null;
        try {
            for (int i = 0; !stopping; i++) {
                int xid = (thread + 1) * XIDS_PER_THREAD + i;
                int length = 1 + (i * 97 + thread * 13) % ReadChunkLoad.MAX_ARGUMENT;
                byte[] data = EchoWire.pattern(xid, length);
                long giveUp = System.nanoTime() + GIVE_UP.toNanos();
                while (true) {
                    if (client == null) {
                        client = connect(giveUp);
                        if (client == null) {
                            failures.add("xid " + xid + ": no connection within " + GIVE_UP.toSeconds() + " s (server "
                                    + server.get() + ", last attempt: " + lastConnectError + ")");
                            return;
                        }
                    }
                    try {
                        RpcReply reply = client.call(EchoWire.echoWithReadChunk(xid, data), callTimeout);
                        byte[] body = EchoWire.bytes(reply.body());
                        if (!Arrays.equals(EchoWire.echoReply(xid, data), body)) {
                            failures.add("xid " + xid + " (" + length + " bytes): reply differs: "
                                    + Arrays.toString(Arrays.copyOf(body, Math.min(body.length, 32))) + "...");
                            return;
                        }
                        answered.incrementAndGet();
                        break;
                    } catch (RdmaErrorException | MalformedReplyException e) {
                        failures.add("xid " + xid + " (" + length + " bytes): the server answered " + e);
                        return;
                    } catch (java.io.IOException e) {
                        // The connection went away (or the call timed out on it): reconnect, retransmit.
                        reconnectCauses.add("xid " + xid + ": " + e);
                        client.close();
                        client = null;
                        reconnects.incrementAndGet();
                        if (System.nanoTime() - giveUp > 0) {
                            failures.add("xid " + xid + ": no answer within " + GIVE_UP.toSeconds() + " s of retrying (last: " + e + ")");
                            return;
                        }
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failures.add(Thread.currentThread().getName() + ": " + e);
        } finally {
            if (client != null) {
                client.close();
            }
        }
    }

    /** @return a client connected to the current server, or null when none could be reached before giveUp */
    private RpcRdmaClient connect(long giveUp) throws InterruptedException {
        while (System.nanoTime() - giveUp < 0) {
            InetSocketAddress address = server.get();
            if (address != null) {
                try {
                    return RpcRdmaClient.connect(provider.get(), address, ClientConfig.builder().progressThread(true).build());
                } catch (java.io.IOException | RuntimeException e) {
                    lastConnectError = e.toString(); // not listening (yet): try again
                }
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        return null;
    }
}
