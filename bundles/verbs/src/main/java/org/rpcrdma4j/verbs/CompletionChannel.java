package org.rpcrdma4j.verbs;

import java.util.concurrent.TimeUnit;

/**
 * A completion channel shared by many completion queues (one {@code ibv_comp_channel} per device,
 * waited on together with a wake-up descriptor such as an eventfd, in one {@code poll(2)}): the
 * one place where a completion loop sleeps when none of its queues has work.
 *
 * <p>The loop that owns every queue created on the channel, Netty's event-loop shape:
 * <pre>{@code
 * for (;;) {
 *     int work = drainEverything();                    // poll queues, handle hand-ins
 *     if (work > 0) continue;
 *     for (CompletionQueue cq : unarmed) cq.requestNotification();   // arm (one-shot)
 *     if (drainEverything() > 0) continue;             // close the race with arming
 *     int n = channel.await(fired, 10, SECONDS);       // sleep: a completion or wakeup() ends it
 *     // fired[0..n) are the queues whose arm was consumed: re-arm them before the next sleep
 * }
 * }</pre>
 *
 * <p>Wake-ups are sticky: a {@link #wakeup()} rung while nobody waits makes the next
 * {@link #await} return at once, so a hand-in between the loop's last drain and its sleep is
 * never lost. Ringing costs a system call on real devices; callers SHOULD ring only when the loop
 * may be asleep (keep an "awake" flag, as Netty's {@code nextWakeupNanos}).
 *
 * <p>Threading: exactly one thread (the loop) MUST call {@link #await} and poll, arm and close the
 * queues created on the channel; {@link #wakeup()} is safe from any thread. Ownership: the caller
 * of {@link VerbsProvider#openCompletionChannel()} owns the channel and MUST close it after every
 * queue created on it is closed.
 */
public interface CompletionChannel extends AutoCloseable {
    /**
     * Creates a completion queue on {@code device} whose notifications arrive on this channel
     * (ibv_create_cq with this channel's ibv_comp_channel for that device).
     *
     * <p>Ownership: the caller owns the queue and MUST close it (after every queue pair using it
     * is destroyed) before closing this channel. Its own {@link CompletionQueue#awaitNotification}
     * MUST NOT be used: the channel waits for it.
     *
     * @param device a device of the same provider
     * @param capacity as {@link VerbsDevice#createCompletionQueue(int)}
     * @return a new queue, not armed
     * @throws VerbsException EINVAL for a bad capacity or a device of another provider; EBADF after close
     */
    CompletionQueue createCompletionQueue(VerbsDevice device, int capacity) throws VerbsException;

    /**
     * Sleeps until an armed queue of this channel receives a completion, {@link #wakeup()} is rung
     * (now or since the last return), or the timeout passes (ibv_get_cq_event and
     * ibv_ack_cq_events for each event taken).
     *
     * @param fired filled from index 0 with the queues whose notification was consumed (each at
     *        most once per call); further events stay pending for the next call
     * @param timeout the longest sleep; 0 takes what is pending without sleeping
     * @param unit its unit
     * @return how many queues fired (0 after a wake-up or a timeout)
     * @throws VerbsException EBADF after close
     * @throws InterruptedException when the waiting thread is interrupted
     */
    int await(CompletionQueue[] fired, long timeout, TimeUnit unit) throws VerbsException, InterruptedException;

    /** Ends the current or the next {@link #await} at once. Any thread; never blocks. */
    void wakeup();

    /**
     * Destroys the channel (and its wake-up descriptor); an {@link #await} in progress returns.
     * Closing twice does nothing.
     *
     * @throws VerbsException EBUSY while a queue created on it is still open
     */
    @Override
    void close() throws VerbsException;
}
