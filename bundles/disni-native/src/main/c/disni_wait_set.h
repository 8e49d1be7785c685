/*
 * A wait set: the native half of a completion channel of the rpcrdma4j verbs contract
 * (org.rpcrdma4j.verbs.disni.DisniCompletionChannel). One poll(2) sleeps on an eventfd (the
 * wake-up any thread can ring) and on one ibv_comp_channel per device; a wake-up takes every
 * completion event that is ready (ibv_get_cq_event, non-blocking), acknowledges it at once
 * (ibv_ack_cq_events) and reports the queue's cq_context, a small integer cookie the Java side
 * set when it created the queue.
 *
 * Kept free of JNI so that a plain C test (test_wait_set.c) runs it without a device.
 *
 * Threading: one thread awaits at a time (the Java side holds a lock); disni_wait_set_add may run
 * concurrently with an await (it fills a slot beyond the published count, then publishes it);
 * disni_wait_set_wake may run from any thread at any time while the set exists. Destroying the set
 * while another thread uses it is the Java side's to prevent (it drains wakers and awaiters first).
 */
#ifndef DISNI_WAIT_SET_H
#define DISNI_WAIT_SET_H

#include <poll.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/* Most completion channels (devices) one wait set sleeps on. */
#define DISNI_WAIT_SET_MAX_CHANNELS 64
/* Most completion events one await takes; more stay pending for the next await. */
#define DISNI_WAIT_SET_MAX_EVENTS 256
/* Added to an await's result when it consumed a wake-up (the eventfd was readable). */
#define DISNI_WAIT_SET_WOKEN 0x10000

struct disni_wait_set {
	int wake_fd;                                                   /* eventfd, non-blocking */
	unsigned int count;                                            /* channels published (acquire/release) */
	unsigned int start;                                            /* channel the next await serves first (awaiter only) */
	struct ibv_comp_channel *channels[DISNI_WAIT_SET_MAX_CHANNELS];
	struct pollfd fds[1 + DISNI_WAIT_SET_MAX_CHANNELS];            /* [0] the eventfd, [1 + i] channels[i] */
};

/*
 * The eventfd wake-up every waiter here uses (a wait set's, a connection manager's descriptor
 * wait): opened non-blocking and close-on-exec; rung with write(2) of 1 (EAGAIN, a saturated
 * counter, counts as rung); consumed with read(2) (EAGAIN: another reader took it).
 * Open returns the descriptor or a negative errno; ring and consume return 0 or an errno.
 */
int disni_eventfd_open(void);
int disni_eventfd_ring(int fd);
int disni_eventfd_consume(int fd);

/* Creates a set with its eventfd. Returns 0, or an errno (then *out is untouched). */
int disni_wait_set_create(struct disni_wait_set **out);

/*
 * Adds a completion channel, whose fd MUST already be non-blocking. Returns 0, EINVAL for a null
 * channel, EEXIST when it is in the set already, or ENOSPC beyond DISNI_WAIT_SET_MAX_CHANNELS.
 * The caller serialises adds (not awaits).
 */
int disni_wait_set_add(struct disni_wait_set *ws, struct ibv_comp_channel *channel);

/*
 * Sleeps up to timeout_ms (0: no sleep) until a channel or the eventfd is readable, then takes up
 * to max events (at most DISNI_WAIT_SET_MAX_EVENTS), acknowledging each, and writes their queues'
 * cq_context values (as int32) to cookies[0..n). The channels are served in turn, starting after
 * the last one served, so a busy device cannot starve another when max is reached. Returns n, plus DISNI_WAIT_SET_WOKEN when the
 * eventfd was read; 0 on timeout or EINTR; or a negative errno. An error after events were taken
 * is not returned: the events are (the error shows again on the next await), so no queue's
 * notification is ever lost.
 */
int disni_wait_set_await(struct disni_wait_set *ws, int timeout_ms, int32_t *cookies, int max);

/* Rings the wake-up (write(2) to the eventfd). Returns 0 or an errno; never blocks. */
int disni_wait_set_wake(struct disni_wait_set *ws);

/* Closes the eventfd and frees the set; the channels are the caller's to destroy. */
void disni_wait_set_destroy(struct disni_wait_set *ws);

#endif
