package org.rpcrdma4j.verbs;

import java.util.concurrent.TimeUnit;

/**
 * A completion queue (ibv_cq) with its notification channel (ibv_comp_channel).
 *
 * <p>The completion-processing loop, Aeron style ({@code doWork()} returns the work done):
 * <pre>{@code
 * int n = cq.poll(completions, completions.length);      // handle n completions
 * if (n == 0) {
 *     cq.requestNotification();                          // arm
 *     n = cq.poll(completions, completions.length);      // close the race with arming
 *     if (n == 0) cq.awaitNotification(100, MILLISECONDS); // sleep until an entry arrives
 * }
 * }</pre>
 *
 * <p>Threading: exactly one thread (the completion-processing thread) MUST poll, arm and await a
 * given queue; posting to queue pairs that use it MAY happen from other threads. Ownership: the
 * creator owns the queue and MUST close it after every queue pair using it is destroyed.
 */
public interface CompletionQueue extends AutoCloseable {
    /** @return the device the queue lives on */
    VerbsDevice device();

    /** @return the number of entries the queue holds */
    int capacity();

    /**
     * Moves up to {@code max} completions into the caller's reusable objects (ibv_poll_cq).
     * Never blocks, never allocates. Polling a completion frees the send or receive queue slots of
     * the requests it retires (for a signaled send, also those of the unsignaled sends before it).
     *
     * @param completions reusable completion objects, filled from index 0
     * @param max the most to take, at most {@code completions.length}
     * @return the number filled, 0 when the queue is empty
     * @throws VerbsException EOVERFLOW once the queue has overflowed (completions were lost and
     *         the queue pairs using it are in error); EBADF after close
     */
    int poll(WorkCompletion[] completions, int max) throws VerbsException;

    /**
     * Arms the queue (ibv_req_notify_cq): the next completion added wakes
     * {@link #awaitNotification}. One-shot; re-arm after each wake-up.
     *
     * @throws VerbsException EBADF after close
     */
    void requestNotification() throws VerbsException;

    /**
     * Waits until the armed queue receives a completion (ibv_get_cq_event, acknowledged before
     * returning), or the timeout elapses. Returns at once when a notification is already pending.
     *
     * @param timeout the longest wait
     * @param unit its unit
     * @return true when notified, false on timeout
     * @throws VerbsException EBADF after close
     * @throws InterruptedException when the waiting thread is interrupted
     */
    boolean awaitNotification(long timeout, TimeUnit unit) throws VerbsException, InterruptedException;

    /**
     * Destroys the queue and its channel; a thread in {@link #awaitNotification} returns. Closing
     * twice does nothing.
     *
     * @throws VerbsException EBUSY while a queue pair still uses it
     */
    @Override
    void close() throws VerbsException;
}
