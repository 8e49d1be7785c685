package org.rpcrdma4j.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;

/**
 * CallsRunOnLoopRaceTest - the claim protocol of {@link CallsRunOnLoop}: the thread that
 * kept the calls runs them one by one while a standby taking the loop over moves the ones not
 * yet claimed to its own and sends them on. Raced many times, every call runs exactly once, and
 * each owner reuses its object once its calls are all claimed.
 */
class CallsRunOnLoopRaceTest {
    private static final int ROUNDS = 20_000;
    private static final Executor NOWHERE = task -> {
        throw new AssertionError("a kept call's elsewhere is the loop's to use, not the claim protocol's");
    };

    /** About a microsecond of work, without sleeping. */
    private static void busy() {
        long until = System.nanoTime() + 1_000;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    @Test
    void everyKeptCallRunsOnceWhenATakeoverRacesTheThreadThatKeptThem() throws Exception {
        CallsRunOnLoop leader = new CallsRunOnLoop();
        CallsRunOnLoop standby = new CallsRunOnLoop();
        int batch = LoopCrew.MAX_CALLS_RUN_ON_LOOP_PER_PASS;
        AtomicIntegerArray runs = new AtomicIntegerArray(ROUNDS * batch);
        CyclicBarrier start = new CyclicBarrier(2);
        CyclicBarrier end = new CyclicBarrier(2);
        Throwable[] failure = new Throwable[1];
        Thread taker = new Thread(() -> {
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    start.await();
                    if (round % 4 != 3) { // one round in four: no takeover, the leader runs all
                        leader.moveUnclaimedTo(standby);
                        Runnable call;
                        while ((call = standby.claim()) != null) {
                            call.run();
                        }
                    }
                    end.await();
                }
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "standby");
        taker.start();
        for (int round = 0; round < ROUNDS; round++) {
            leader.clear();
            int size = 1 + round % batch;
            for (int i = 0; i < size; i++) {
                int id = round * batch + i;
                leader.add(() -> {
                    runs.incrementAndGet(id);
                    busy(); // a call takes a while: the takeover meets the leader among its calls
                }, NOWHERE);
            }
            start.await();
            Runnable call;
            while ((call = leader.claim()) != null) {
                call.run();
            }
            end.await();
            assertNull(leader.claim(), "round " + round + ": a claim after the last");
        }
        taker.join();
        assertNull(failure[0], () -> "the standby failed: " + failure[0]);
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < batch; i++) {
                int expected = i < 1 + round % batch ? 1 : 0;
                assertEquals(expected, runs.get(round * batch + i), "round " + round + ", call " + i);
            }
        }
    }
}
