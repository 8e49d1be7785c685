package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.Errno;

/**
 * The descriptor wait a DiSNI connection manager sleeps in (libdisni's awaitDescriptors), without
 * a device: two eventfds stand in for the manager's wake-up and its event channel. The timeout
 * only turns a hang into a failure; nothing here measures time.
 */
@ExtendWith(RequiresLibdisni.class)
@Timeout(60)
class DescriptorWaitTest {
    private int wakeup = -1;
    private int other = -1;
    private final int[] descriptors = new int[DisniExtensions.MAX_AWAITED_DESCRIPTORS + 1];

    @BeforeEach
    void open() throws Exception {
        wakeup = DisniExtensions.openWakeup();
        other = DisniExtensions.openWakeup();
        descriptors[0] = wakeup;
        descriptors[1] = other;
    }

    @AfterEach
    void close() {
        DisniExtensions.closeWakeup(wakeup);
        DisniExtensions.closeWakeup(other);
    }

    @Test
    void nothingReadyTimesOutWithAnEmptyMask() {
        assertEquals(0, DisniExtensions.awaitDescriptors(descriptors, 2, 0));
        assertEquals(0, DisniExtensions.awaitDescriptors(descriptors, 2, 20));
    }

    @Test
    void aRungWakeUpIsReportedOnceAndConsumed() {
        assertEquals(0, DisniExtensions.ringWakeup(wakeup));
        assertEquals(0, DisniExtensions.ringWakeup(wakeup));
        assertEquals(1, DisniExtensions.awaitDescriptors(descriptors, 2, 10_000), "bit 0: the wake-up");
        assertEquals(0, DisniExtensions.awaitDescriptors(descriptors, 2, 0), "two rings, one wake: the counter was read");
    }

    @Test
    void otherDescriptorsAreReportedByTheirBitAndLeftForTheirOwner() {
        DisniExtensions.ringWakeup(other);
        assertEquals(2, DisniExtensions.awaitDescriptors(descriptors, 2, 10_000), "bit 1: the second descriptor");
        assertEquals(2, DisniExtensions.awaitDescriptors(descriptors, 2, 0), "not consumed: its owner reads it");
        DisniExtensions.ringWakeup(wakeup);
        assertEquals(3, DisniExtensions.awaitDescriptors(descriptors, 2, 0));
        assertEquals(2, DisniExtensions.awaitDescriptors(descriptors, 2, 0));
    }

    @Test
    void aWakeUpFromAnotherThreadEndsALongSleep() throws Exception {
        Thread ringer = new Thread(() -> DisniExtensions.ringWakeup(wakeup), "ringer");
        ringer.start();
        int ready = 0;
        while (ready == 0) { // EINTR also returns 0; the hour is never reached when the ring arrives
            ready = DisniExtensions.awaitDescriptors(descriptors, 2, 3_600_000);
        }
        assertEquals(1, ready);
        ringer.join();
    }

    @Test
    void badCountsAndClosedDescriptorsAreErrorsNotSpins() throws Exception {
        assertEquals(-Errno.EINVAL, DisniExtensions.awaitDescriptors(descriptors, 0, 0));
        assertEquals(-Errno.EINVAL, DisniExtensions.awaitDescriptors(descriptors, DisniExtensions.MAX_AWAITED_DESCRIPTORS + 1, 0));
        assertEquals(-Errno.EINVAL, DisniExtensions.awaitDescriptors(new int[1], 2, 0), "count beyond the array");
        int closed = DisniExtensions.openWakeup();
        DisniExtensions.closeWakeup(closed);
        descriptors[1] = closed;
        assertEquals(-Errno.EBADF, DisniExtensions.awaitDescriptors(descriptors, 2, 10_000));
        assertEquals(-Errno.EINVAL, DisniExtensions.eventChannelDescriptor(0));
        assertEquals(-Errno.EINVAL, DisniExtensions.asyncEventDescriptor(0));
    }
}
