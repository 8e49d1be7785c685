package org.rpcrdma4j.transport.internal.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.Counter;

/**
 * CountersTest - a writer's single-writer counts show in its transport's counters when read, are
 * kept by the transport when the writer retires, and are never lost or seen twice, also while the
 * writer changes threads (as the holder of a connection's send lock does) and readers read.
 */
class CountersTest {
    private final Counters transport = Counters.forTransport();

    @Test
    void ownedAndSharedCountsShowInTheTransport() {
        Counters connection = transport.newWriter(() -> true);
        Counters loop = transport.newWriter(() -> true);
        connection.incrementOwned(Counter.RECEIVES);
        connection.addOwned(Counter.WRITE_BYTES, 4096);
        connection.increment(Counter.REPLIES_DROPPED);
        loop.incrementOwned(Counter.LOOP_SLEEPS);
        transport.increment(Counter.CONNECTIONS_ACCEPTED);

        assertEquals(1, connection.get(Counter.RECEIVES));
        assertEquals(1, connection.get(Counter.REPLIES_DROPPED));
        assertEquals(0, connection.get(Counter.LOOP_SLEEPS), "the loop's count is not the connection's");
        assertEquals(1, transport.get(Counter.RECEIVES));
        assertEquals(4096, transport.get(Counter.WRITE_BYTES));
        assertEquals(1, transport.get(Counter.REPLIES_DROPPED));
        assertEquals(1, transport.get(Counter.LOOP_SLEEPS));
        assertEquals(1, transport.get(Counter.CONNECTIONS_ACCEPTED));
        String described = transport.toString();
        assertTrue(described.contains("WRITE_BYTES=4096"), described);
        assertTrue(described.contains("LOOP_SLEEPS=1"), described);
    }

    @Test
    void aRetiredWritersCountsStayWithTheTransportOnce() {
        Counters connection = transport.newWriter(() -> true);
        connection.addOwned(Counter.SENDS, 7);
        connection.retire();
        assertEquals(7, transport.get(Counter.SENDS), "kept once the writer retired");
        connection.retire();
        assertEquals(7, transport.get(Counter.SENDS), "a second retire does nothing");
        // A count after the retirement (a late reply dropped) goes straight to the transport.
        connection.incrementOwned(Counter.SENDS);
        assertEquals(8, transport.get(Counter.SENDS));
        assertEquals(8, connection.get(Counter.SENDS));
        Counters next = transport.newWriter(() -> true);
        next.incrementOwned(Counter.SENDS);
        assertEquals(9, transport.get(Counter.SENDS));
    }

    @Test
    void aCountOffTheWriterIsRefusedByTheAssertion() {
        assumeTrue(Counters.class.desiredAssertionStatus(), "runs with assertions on (-ea), as surefire runs the tests");
        ReentrantLock sendLock = new ReentrantLock();
        Counters connection = transport.newWriter(sendLock::isHeldByCurrentThread);
        AssertionError refused = assertThrows(AssertionError.class, () -> connection.incrementOwned(Counter.RECEIVES));
        assertTrue(refused.getMessage().contains("RECEIVES"), refused.getMessage());
        sendLock.lock();
        try {
            connection.incrementOwned(Counter.RECEIVES);
        } finally {
            sendLock.unlock();
        }
        assertEquals(1, transport.get(Counter.RECEIVES));
    }

    @Test
    void writersTakingTurnsUnderALockLoseNoCountAndReadersSeeThemGrow() throws Exception {
        int perThread = 200_000;
        ReentrantLock sendLock = new ReentrantLock();
        Counters connection = transport.newWriter(sendLock::isHeldByCurrentThread);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<String> readerSaw = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            long last = 0;
            while (writing.get()) {
                long now = transport.get(Counter.RECEIVES);
                if (now < last) {
                    readerSaw.set("the transport's count went back from " + last + " to " + now);
                    return;
                }
                last = now;
            }
        }, "counters-reader");
        Runnable turns = () -> {
            for (int i = 0; i < perThread; i++) {
                sendLock.lock();
                try {
                    connection.incrementOwned(Counter.RECEIVES);
                    if (i == perThread - 1 && Thread.currentThread().getName().equals("writer-b")) {
                        // The last count of one writer: retire while the other may still count.
                        connection.retire();
                    }
                } finally {
                    sendLock.unlock();
                }
            }
        };
        Thread a = new Thread(turns, "writer-a");
        Thread b = new Thread(turns, "writer-b");
        reader.start();
        a.start();
        b.start();
        a.join();
        b.join();
        writing.set(false);
        reader.join();
        assertEquals(null, readerSaw.get());
        assertEquals(2L * perThread, connection.get(Counter.RECEIVES), "the connection's own count");
        assertEquals(2L * perThread, transport.get(Counter.RECEIVES), "the transport's count");
    }
}
