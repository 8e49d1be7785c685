package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The DiSNI completion channel without a device: its eventfd half (wake-ups, await, close,
 * interrupts) runs in libdisni on any Linux host; the completion queues on it need a device and
 * are covered by {@link DisniCompletionChannelDeviceTest}. The timeout only turns a hang into a
 * failure; nothing here measures time.
 */
@ExtendWith(RequiresLibdisni.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DisniCompletionChannelTest {
    private DisniProvider provider;
    private DisniCompletionChannel channel;
    private final CompletionQueue[] fired = new CompletionQueue[4];

    @BeforeEach
    void open() throws VerbsException {
        provider = new DisniProvider();
        channel = (DisniCompletionChannel) provider.openCompletionChannel();
    }

    @AfterEach
    void close() throws VerbsException {
        channel.close();
        provider.close();
    }

    @Test
    void anAwaitWithNothingPendingTimesOutWithNoQueue() throws Exception {
        assertEquals(0, channel.await(fired, 0, TimeUnit.MILLISECONDS));
        assertEquals(0, channel.await(fired, 120, TimeUnit.MILLISECONDS)); // more than one slice
        assertNull(fired[0]);
    }

    @Test
    void wakeupsRungWhileNobodyWaitsEndTheNextAwaitAndAreConsumedByIt() throws Exception {
        channel.wakeup();
        channel.wakeup();
        channel.wakeup();
        assertEquals(0, channel.await(fired, 1, TimeUnit.DAYS), "sticky: returns at once");
        int[] cookies = new int[1];
        assertEquals(0, DisniExtensions.awaitWaitSet(channel.waitSetHandle(), 0, cookies, 1), "nothing left in the eventfd");
        channel.wakeup(); // the await reset the pending flag: this ring reaches the eventfd again
        assertEquals(DisniExtensions.WAIT_SET_WOKEN, DisniExtensions.awaitWaitSet(channel.waitSetHandle(), 0, cookies, 1));
        assertNull(fired[0]);
    }

    @Test
    void aWakeupFromAnotherThreadEndsAnAwaitInProgress() throws Exception {
        Awaiter awaiter = Awaiter.start(channel, fired);
        awaiter.untilInNativeWait(channel);
        channel.wakeup();
        awaiter.thread.join();
        assertNull(awaiter.failure.get());
        assertEquals(0, awaiter.result);
    }

    @Test
    void closeEndsAnAwaitInProgressAndLaterCallsAreRefusedOrIgnored() throws Exception {
        Awaiter awaiter = Awaiter.start(channel, fired);
        awaiter.untilInNativeWait(channel);
        channel.close();
        awaiter.thread.join();
        assertNull(awaiter.failure.get(), "an await in progress returns, it does not fail");
        assertEquals(0, awaiter.result);
        assertEquals(Errno.EBADF, assertThrows(VerbsException.class, () -> channel.await(fired, 0, TimeUnit.SECONDS)).errno());
        channel.wakeup(); // ignored: the wait set is gone
        channel.close(); // twice: nothing
    }

    @Test
    void anInterruptEndsAnAwaitWithInterruptedException() throws Exception {
        Awaiter awaiter = Awaiter.start(channel, fired);
        awaiter.untilInNativeWait(channel);
        awaiter.thread.interrupt();
        awaiter.thread.join();
        assertTrue(awaiter.failure.get() instanceof InterruptedException, String.valueOf(awaiter.failure.get()));
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> channel.await(fired, 0, TimeUnit.SECONDS), "interrupted on entry");
    }

    @Test
    void badArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> channel.await(new CompletionQueue[0], 1, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> channel.await(fired, -1, TimeUnit.SECONDS));
        assertThrows(NullPointerException.class, () -> channel.await(fired, 1, null));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> channel.createCompletionQueue(new ForeignDevice(), 8)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> channel.createCompletionQueue(null, 8)).errno());
    }

    @Test
    void wakersRacingCloseNeverFailAndAwaitAfterCloseIsRefused() throws Exception {
        for (int round = 0; round < 20; round++) {
            DisniCompletionChannel racing = (DisniCompletionChannel) provider.openCompletionChannel();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] wakers = new Thread[2];
            for (int i = 0; i < wakers.length; i++) {
                wakers[i] = new Thread(() -> {
                    try {
                        for (int n = 0; n < 100_000 && !stop.get(); n++) {
                            racing.wakeup();
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                wakers[i].start();
            }
            racing.await(fired, 0, TimeUnit.SECONDS);
            racing.close();
            stop.set(true);
            for (Thread waker : wakers) {
                waker.join();
            }
            assertNull(failure.get());
            assertEquals(Errno.EBADF, assertThrows(VerbsException.class, () -> racing.await(fired, 0, TimeUnit.SECONDS)).errno());
        }
    }

    @Test
    void aClosedProviderOpensNoChannel() {
        provider.close();
        assertEquals(Errno.EBADF, assertThrows(VerbsException.class, provider::openCompletionChannel).errno());
    }

    /** A thread in {@link CompletionChannel#await} for a day, recording how it ended. */
    private static final class Awaiter {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile int result = -1;
        Thread thread;

        static Awaiter start(CompletionChannel channel, CompletionQueue[] fired) {
            Awaiter awaiter = new Awaiter();
            awaiter.thread = new Thread(() -> {
                try {
                    awaiter.result = channel.await(fired, 1, TimeUnit.DAYS);
                } catch (Throwable t) {
                    awaiter.failure.set(t);
                }
            }, "awaiter");
            awaiter.thread.start();
            return awaiter;
        }

        /** Spins until the thread holds the await lock: it is past the open check, in or between native waits. */
        void untilInNativeWait(DisniCompletionChannel channel) {
            while (!channel.isAwaiting() && thread.isAlive()) {
                Thread.onSpinWait();
            }
        }
    }

    /** A device of no provider: the channel refuses it. */
    private static final class ForeignDevice implements VerbsDevice {
        @Override
        public String name() {
            return "foreign0";
        }

        @Override
        public DeviceCapabilities capabilities() {
            return new DeviceCapabilities(TransportType.ROCE, 1, 1, 1, 0, 16, 64, 1, 1, false, false, 0);
        }

        @Override
        public ProtectionDomain allocateProtectionDomain() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionQueue createCompletionQueue(int capacity) {
            throw new UnsupportedOperationException();
        }
    }
}
