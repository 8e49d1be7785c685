package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;

/**
 * WorkerFairnessTest - issue #31 (D4): the host's workers serve connections in turn. Busy
 * connections keep every credit full of slow calls (each reply is followed at once by the next
 * call, as a client with a full window does) on few workers, while a quiet connection calls NULL
 * again and again. How long the quiet call waits is measured in scheduling terms, not time: a
 * sequence number taken by every call as its program starts counts how many other calls were
 * served between the quiet call's arrival and its own start.
 */
class WorkerFairnessTest {
    private static final int PROGRAM = 0x2000_0432;
    private static final int VERSION = 1;
    private static final int PROC_NULL = 0;
    private static final int PROC_SLOW = 1;
    private static final long SLOW_MILLIS = 20;

    private static final int WORKERS = 2;
    private static final int BUSY_CONNECTIONS = 4;
    private static final int CREDITS = 8;
    private static final int QUIET_CALLS = 12;

    /** Every call takes the next number as its program starts. */
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong quietStartedAt = new AtomicLong(-1);

    private final class SequencedProgram implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws java.io.IOException {
            long at = served.getAndIncrement();
            if (call.getProcedure() == PROC_SLOW) {
                try {
                    Thread.sleep(SLOW_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else {
                quietStartedAt.set(at);
            }
            call.retrieveCall(XdrVoid.XDR_VOID);
            call.reply(XdrVoid.XDR_VOID);
        }
    }

    /** A connection whose client sends its next call as soon as a reply comes (its credits stay full). */
    private static final class BusyConnection extends CapturingTransport {
        private final RpcCallDispatcher dispatcher;
        private final AtomicBoolean stopping;
        private final AtomicInteger xids = new AtomicInteger();
        final CountDownLatch drained = new CountDownLatch(CREDITS);

        BusyConnection(RpcCallDispatcher dispatcher, AtomicBoolean stopping) {
            this.dispatcher = dispatcher;
            this.stopping = stopping;
        }

        void call() {
            dispatcher.receive(new Xdr(RpcHeaders.nullAuthCall(xids.incrementAndGet(), 2, PROGRAM, VERSION, PROC_SLOW)), this);
        }

        @Override
        public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
            handler.completed(xdr.asBuffer().remaining(), attachment);
            if (stopping.get()) {
                drained.countDown();
            } else {
                call();
            }
        }
    }

    @Test
    void aQuietConnectionsCallWaitsForAtMostOneCallOfEachBusyConnection() throws Exception {
        AtomicBoolean stopping = new AtomicBoolean();
        try (HostServer host = new HostServer(WORKERS)) {
            host.addProgram(new OncRpcProgram(PROGRAM, VERSION), new SequencedProgram());
            RpcCallDispatcher dispatcher = host.dispatcher();
            List<BusyConnection> busy = new ArrayList<>();
            for (int c = 0; c < BUSY_CONNECTIONS; c++) {
                BusyConnection connection = new BusyConnection(dispatcher, stopping);
                busy.add(connection);
                for (int i = 0; i < CREDITS; i++) {
                    connection.call();
                }
            }
            CapturingTransport quiet = new CapturingTransport();
            List<Long> waits = new ArrayList<>();
            try {
                for (int i = 0; i < QUIET_CALLS; i++) {
                    quietStartedAt.set(-1);
                    long arrival = served.get();
                    dispatcher.receive(new Xdr(RpcHeaders.nullAuthCall(0x500 + i, 2, PROGRAM, VERSION, PROC_NULL)), quiet);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (quiet.sent.size() <= i && System.nanoTime() - deadline < 0) {
                        Thread.sleep(1);
                    }
                    assertEquals(i + 1, quiet.sent.size(), "quiet call " + i + " answered");
                    waits.add(quietStartedAt.get() - arrival);
                }
            } finally {
                stopping.set(true);
            }
            for (BusyConnection connection : busy) {
                assertTrue(connection.drained.await(60, TimeUnit.SECONDS), "the busy connections' calls all ran");
            }
            // Between its arrival and its start: at most one call of each busy connection (the ones
            // ahead of it in the round), plus one per worker that started a call while it was queued.
            long bound = BUSY_CONNECTIONS + WORKERS;
            long worst = waits.stream().mapToLong(Long::longValue).max().orElseThrow();
            assertTrue(worst <= bound, "calls served between a quiet call's arrival and its start: " + waits
                    + " (bound " + bound + "; the busy connections keep " + BUSY_CONNECTIONS * CREDITS + " in flight)");
        }
    }

    @Test
    void aConnectionBeyondItsQueueBoundIsRefusedAndCountedOthersAreNot() throws Exception {
        try (HostServer host = new HostServer(1, 2)) {
            CountDownLatch gate = new CountDownLatch(1);
            CountDownLatch running = new CountDownLatch(1);
            Object busy = new Object();
            Object other = new Object();
            host.dispatcher().execute(busy, () -> {
                running.countDown();
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(running.await(30, TimeUnit.SECONDS));
            AtomicInteger ran = new AtomicInteger();
            host.dispatcher().execute(busy, ran::incrementAndGet);
            host.dispatcher().execute(busy, ran::incrementAndGet);
            assertThrows(java.util.concurrent.RejectedExecutionException.class,
                    () -> host.dispatcher().execute(busy, ran::incrementAndGet), "a third call waiting is beyond the bound");
            host.dispatcher().execute(other, ran::incrementAndGet); // another connection has its own bound
            assertEquals(1, host.callsRefusedOverConnectionBound());
            gate.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (ran.get() < 3 && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            assertEquals(3, ran.get(), "every queued call ran");
        }
    }

    @Test
    void theQueueBoundSettingIsChecked() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new HostServer(1, 0)).getMessage()
                .startsWith("maxQueuedCallsPerConnection"), "the message names the setting");
        assertThrows(IllegalArgumentException.class, () -> new HostServer(1, HostServer.MAX_QUEUED_CALLS_PER_CONNECTION + 1));
        assertEquals(5, HostServer.checkMaxQueuedCallsPerConnection(5));
    }
}
