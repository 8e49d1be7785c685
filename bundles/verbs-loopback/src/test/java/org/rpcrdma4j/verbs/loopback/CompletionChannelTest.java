package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionOpcode;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsException;

/** The loopback completion channel: sticky wake-ups, fired queues, ownership rules. */
class CompletionChannelTest {
    @Test
    void aWakeupRungBeforeTheWaitEndsTheNextWaitAtOnceAndOnlyThatOne() throws Exception {
        try (LoopbackFabric fabric = LoopbackFabric.threaded()) {
            CompletionChannel channel = fabric.provider().openCompletionChannel();
            CompletionQueue[] fired = new CompletionQueue[4];
            channel.wakeup();
            channel.wakeup();
            assertEquals(0, channel.await(fired, 10, TimeUnit.SECONDS), "woken, nothing fired");
            long start = System.nanoTime();
            assertEquals(0, channel.await(fired, 20, TimeUnit.MILLISECONDS));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20), "the second wait slept: the wake-up was used up");
            channel.close();
        }
    }

    @Test
    void aWakeupFromAnotherThreadEndsAWaitInProgress() throws Exception {
        try (LoopbackFabric fabric = LoopbackFabric.threaded()) {
            CompletionChannel channel = fabric.provider().openCompletionChannel();
            CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return channel.await(new CompletionQueue[1], 60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(50);
            channel.wakeup();
            assertEquals(0, waiting.get(30, TimeUnit.SECONDS));
            channel.close();
        }
    }

    @Test
    void anArmedQueueOfTheChannelFiresOnceWhenACompletionArrives() throws Exception {
        try (LoopbackFabric fabric = LoopbackFabric.deterministic()) {
            CompletionChannel channel = fabric.provider().openCompletionChannel();
            CompletionQueue quiet = channel.createCompletionQueue(fabric.device(), 8);
            CompletionQueue busy = channel.createCompletionQueue(fabric.device(), 8);
            quiet.requestNotification();
            busy.requestNotification();
            CompletionQueue[] fired = new CompletionQueue[4];
            assertEquals(0, channel.await(fired, 0, TimeUnit.SECONDS), "nothing completed yet");
            fabric.lock.lock();
            try {
                ((LoopbackCompletionQueue) busy).add(null, 1, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 0, 0, 0);
            } finally {
                fabric.lock.unlock();
            }
            assertEquals(1, channel.await(fired, 10, TimeUnit.SECONDS));
            assertTrue(fired[0] == busy, "the queue that received the completion fired");
            assertEquals(0, channel.await(fired, 0, TimeUnit.SECONDS), "one-shot: not armed again");
            quiet.close();
            busy.close();
            channel.close();
        }
    }

    @Test
    void closingWithAnOpenQueueIsRefusedAndAQueueOfAnotherFabricToo() throws Exception {
        try (LoopbackFabric fabric = LoopbackFabric.threaded(); LoopbackFabric other = LoopbackFabric.threaded()) {
            CompletionChannel channel = fabric.provider().openCompletionChannel();
            CompletionQueue cq = channel.createCompletionQueue(fabric.device(), 4);
            assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, channel::close).errno());
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> cq.awaitNotification(1, TimeUnit.MILLISECONDS)).errno(),
                    "a queue of a channel is awaited through the channel");
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                    () -> channel.createCompletionQueue(other.device(), 4)).errno());
            cq.close();
            channel.close();
            channel.close();
            assertEquals(Errno.EBADF, assertThrows(VerbsException.class,
                    () -> channel.await(new CompletionQueue[1], 0, TimeUnit.SECONDS)).errno());
        }
    }

    @Test
    void theOsgiComponentHandsOutTheProvidersChannel() throws Exception {
        // The DS components delegate to their provider: a method they did not pass on fell to the
        // contract's default (EOPNOTSUPP) and the transport's loops polled in Karaf.
        LoopbackProviderComponent component = new LoopbackProviderComponent();
        try {
            CompletionChannel channel = component.openCompletionChannel();
            channel.wakeup();
            assertEquals(0, channel.await(new CompletionQueue[1], 10, TimeUnit.SECONDS));
            channel.close();
        } finally {
            component.deactivate();
        }
    }
}
