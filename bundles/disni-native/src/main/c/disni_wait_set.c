/* The wait set of a completion channel (see disni_wait_set.h). */
#include "disni_wait_set.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>

int disni_eventfd_open(void)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	return fd >= 0 ? fd : -errno;
}

int disni_eventfd_ring(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) == (ssize_t)sizeof(one))
		return 0;
	return errno == EAGAIN ? 0 : errno;
}

int disni_eventfd_consume(int fd)
{
	uint64_t value;

	if (read(fd, &value, sizeof(value)) == (ssize_t)sizeof(value))
		return 0;
	return errno == EAGAIN ? 0 : (errno != 0 ? errno : EIO);
}

int disni_wait_set_create(struct disni_wait_set **out)
{
	struct disni_wait_set *ws = calloc(1, sizeof(*ws));

	if (ws == NULL)
		return ENOMEM;
	ws->wake_fd = disni_eventfd_open();
	if (ws->wake_fd < 0) {
		int err = -ws->wake_fd;

		free(ws);
		return err;
	}
	ws->fds[0].fd = ws->wake_fd;
	ws->fds[0].events = POLLIN;
	*out = ws;
	return 0;
}

int disni_wait_set_add(struct disni_wait_set *ws, struct ibv_comp_channel *channel)
{
	unsigned int n = __atomic_load_n(&ws->count, __ATOMIC_RELAXED); /* adds are serialised */
	unsigned int i;

	if (channel == NULL)
		return EINVAL;
	for (i = 0; i < n; i++) {
		if (ws->channels[i] == channel)
			return EEXIST;
	}
	if (n == DISNI_WAIT_SET_MAX_CHANNELS)
		return ENOSPC;
	ws->channels[n] = channel;
	ws->fds[1 + n].fd = channel->fd;
	ws->fds[1 + n].events = POLLIN;
	ws->fds[1 + n].revents = 0;
	/* An await that loaded the old count never reads slot n; one that loads the new sees it filled. */
	__atomic_store_n(&ws->count, n + 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Takes the ready events of one channel, up to room, into cookies. Returns how many were taken, or
 * -errno when the channel failed before any was taken (nothing ready although poll(2) reported an
 * error condition counts as a failure: EIO, so a dead channel never spins its caller).
 */
static int take_events(struct ibv_comp_channel *channel, short revents, int32_t *cookies, int room)
{
	int taken = 0;

	while (taken < room) {
		struct ibv_cq *cq;
		void *context;

		errno = 0;
		if (ibv_get_cq_event(channel, &cq, &context) != 0) {
			int err = errno;

			if (err == EAGAIN || err == EWOULDBLOCK) {
				if (taken == 0 && (revents & (POLLERR | POLLHUP | POLLNVAL)) != 0)
					return (revents & POLLNVAL) != 0 ? -EBADF : -EIO;
				return taken;
			}
			return taken > 0 ? taken : -(err != 0 ? err : EIO);
		}
		ibv_ack_cq_events(cq, 1);
		cookies[taken++] = (int32_t)(intptr_t)context;
	}
	return taken;
}

int disni_wait_set_await(struct disni_wait_set *ws, int timeout_ms, int32_t *cookies, int max)
{
	unsigned int n = __atomic_load_n(&ws->count, __ATOMIC_ACQUIRE);
	unsigned int first = n > 0 ? ws->start % n : 0;
	unsigned int i;
	int ready, taken = 0, woken = 0, err;

	if (max > DISNI_WAIT_SET_MAX_EVENTS)
		max = DISNI_WAIT_SET_MAX_EVENTS;
	if (max <= 0 || cookies == NULL)
		return -EINVAL;
	for (i = 0; i <= n; i++)
		ws->fds[i].revents = 0;
	ready = poll(ws->fds, n + 1, timeout_ms < 0 ? 0 : timeout_ms);
	if (ready < 0)
		return errno == EINTR ? 0 : -errno;
	if (ready == 0)
		return 0;
	if (ws->fds[0].revents != 0) {
		err = disni_eventfd_consume(ws->wake_fd);
		if (err != 0)
			return -err;
		woken = DISNI_WAIT_SET_WOKEN;
	}
	for (i = 0; i < n && taken < max; i++) {
		unsigned int c = (first + i) % n;
		int got;

		if (ws->fds[1 + c].revents == 0)
			continue;
		got = take_events(ws->channels[c], ws->fds[1 + c].revents, cookies + taken, max - taken);
		if (got < 0) {
			if (taken > 0 || woken != 0)
				break; /* report what was taken; the failure shows again next time */
			return got;
		}
		taken += got;
		ws->start = (c + 1) % n;
	}
	return taken + woken;
}

int disni_wait_set_wake(struct disni_wait_set *ws)
{
	return disni_eventfd_ring(ws->wake_fd);
}

void disni_wait_set_destroy(struct disni_wait_set *ws)
{
	if (ws == NULL)
		return;
	close(ws->wake_fd);
	free(ws);
}
