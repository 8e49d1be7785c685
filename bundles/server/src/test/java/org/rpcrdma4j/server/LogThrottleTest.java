package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One line per interval for an event a peer can repeat at will, and the count of those held back. */
class LogThrottleTest {

    @Test
    void theFirstEventIsLoggedAndTheNextOnesWithinTheIntervalAreHeldBackAndCounted() {
        LogThrottle throttle = new LogThrottle(1, TimeUnit.HOURS);
        assertEquals(0, throttle.admit(), "the first line, nothing held back");
        for (int i = 0; i < 1000; i++) {
            assertEquals(-1, throttle.admit(), "event " + i + " within the hour is held back");
        }
        assertEquals("", LogThrottle.held(0));
        assertTrue(LogThrottle.held(1000).contains("1000 more"), LogThrottle.held(1000));
    }

    @Test
    void afterTheIntervalTheNextLineSaysHowManyWereHeldBack() throws Exception {
        LogThrottle throttle = new LogThrottle(200, TimeUnit.MILLISECONDS);
        assertEquals(0, throttle.admit());
        for (int i = 0; i < 5; i++) {
            throttle.admit(); // held back unless this thread was descheduled past the interval
        }
        Thread.sleep(300); // past the interval, whatever happened above
        long held = throttle.admit();
        assertTrue(held >= 0, "the interval passed: this one is logged");
        assertTrue(held <= 5, "it counts at most the five held back: " + held);
        assertEquals(-1, throttle.admit(), "and the next one is held back again");
    }

    @Test
    void aNonPositiveIntervalIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LogThrottle(0, TimeUnit.SECONDS));
    }
}
