package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class BenchPlanTest {
    private static final Duration SECOND = Duration.ofSeconds(1);

    @Test
    void settingsOutOfRangeAreRefusedNamingTheOption() {
        assertRefused("-n", () -> new BenchPlan(0, 1, 1, 1, 0, SECOND, SECOND));
        assertRefused("-n", () -> new BenchPlan(BenchPlan.MAX_CALLS + 1, 1, 1, 1, 0, SECOND, SECOND));
        assertRefused("-c", () -> new BenchPlan(10, 0, 1, 1, 0, SECOND, SECOND));
        assertRefused("-c", () -> new BenchPlan(10, BenchPlan.MAX_CONCURRENCY + 1, 1, 1, 0, SECOND, SECOND));
        assertRefused("-s", () -> new BenchPlan(10, 1, 1, 1, -1, SECOND, SECOND));
        assertRefused("-s", () -> new BenchPlan(10, 1, 1, 1, BenchPlan.MAX_ARGUMENT_BYTES + 1, SECOND, SECOND));
        assertEquals(BenchPlan.MAX_ARGUMENT_BYTES, new BenchPlan(10, 1, 1, 1, BenchPlan.MAX_ARGUMENT_BYTES, SECOND, SECOND).argumentBytes());
        assertRefused("--call-timeout", () -> new BenchPlan(10, 1, 1, 1, 0, Duration.ZERO, SECOND));
        assertRefused("--call-timeout", () -> new BenchPlan(10, 1, 1, 1, 0, null, SECOND));
        assertRefused("--run-timeout", () -> new BenchPlan(10, 1, 1, 1, 0, SECOND, Duration.ofSeconds(-1)));
    }

    @Test
    void neverMoreWorkersThanCalls() {
        assertEquals(3, new BenchPlan(3, 8, 1, 1, 0, SECOND, SECOND).workers());
        assertEquals(8, new BenchPlan(2000, 8, 1, 1, 0, SECOND, SECOND).workers());
        assertEquals(BenchPlan.MAX_CONCURRENCY, new BenchPlan(BenchPlan.MAX_CALLS, BenchPlan.MAX_CONCURRENCY, 1, 1, 0, SECOND, SECOND).workers());
    }

    private static void assertRefused(String option, Runnable creation) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, creation::run);
        assertTrue(e.getMessage().startsWith(option), e.getMessage());
    }
}
