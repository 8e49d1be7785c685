/*
 * Checks the wait set of a completion channel (disni_wait_set.c) without a device: the completion
 * channels are pipes, and ibv_get_cq_event / ibv_ack_cq_events are replaced by stubs that do what
 * libibverbs does (read one struct ib_uverbs_comp_event_desc, the queue's address, from the
 * channel's fd and hand back the queue's cq_context; count acknowledgements). The eventfd is real.
 * Exit status 0 when every check passes; each failure is printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "disni_wait_set.h"

static int failures;
static unsigned int acks;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                      \
		}                                                                        \
	} while (0)

/* libibverbs' ibv_get_cq_event: -1 with read(2)'s errno (EAGAIN on a non-blocking fd), or 0. */
int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	uint64_t handle;

	if (read(channel->fd, &handle, sizeof(handle)) != (ssize_t)sizeof(handle))
		return -1;
	*cq = (struct ibv_cq *)(uintptr_t)handle;
	*cq_context = (*cq)->cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void)cq;
	acks += nevents;
}

struct fake_channel {
	struct ibv_comp_channel channel;
	int write_fd;
};

static void open_channel(struct fake_channel *fc)
{
	int fds[2];

	if (pipe(fds) != 0) {
		perror("pipe");
		failures++;
		return;
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	memset(fc, 0, sizeof(*fc));
	fc->channel.fd = fds[0];
	fc->write_fd = fds[1];
}

static void close_channel(struct fake_channel *fc)
{
	close(fc->channel.fd);
	if (fc->write_fd >= 0)
		close(fc->write_fd);
}

static void event(struct fake_channel *fc, struct ibv_cq *cq)
{
	uint64_t handle = (uint64_t)(uintptr_t)cq;

	if (write(fc->write_fd, &handle, sizeof(handle)) != (ssize_t)sizeof(handle))
		failures++;
}

static void test_wake_is_sticky_and_consumed_once(void)
{
	struct disni_wait_set *ws = NULL;
	int32_t cookies[4];

	CHECK(disni_wait_set_create(&ws) == 0);
	CHECK(disni_wait_set_await(ws, 0, cookies, 4) == 0);
	CHECK(disni_wait_set_wake(ws) == 0);
	CHECK(disni_wait_set_wake(ws) == 0);
	/* rung twice while nobody waited: one await returns woken, at once, even with a long timeout */
	CHECK(disni_wait_set_await(ws, 60000, cookies, 4) == DISNI_WAIT_SET_WOKEN);
	CHECK(disni_wait_set_await(ws, 0, cookies, 4) == 0);
	CHECK(disni_wait_set_await(ws, 0, cookies, 0) == -EINVAL);
	CHECK(disni_wait_set_await(ws, 0, NULL, 4) == -EINVAL);
	disni_wait_set_destroy(ws);
}

static void test_events_of_many_queues_on_two_channels(void)
{
	struct disni_wait_set *ws = NULL;
	struct fake_channel a, b;
	struct ibv_cq cq1, cq2, cq3;
	int32_t cookies[8];
	int ret;

	memset(&cq1, 0, sizeof(cq1));
	memset(&cq2, 0, sizeof(cq2));
	memset(&cq3, 0, sizeof(cq3));
	cq1.cq_context = (void *)(intptr_t)7;
	cq2.cq_context = (void *)(intptr_t)9;
	cq3.cq_context = (void *)(intptr_t)11;
	open_channel(&a);
	open_channel(&b);
	CHECK(disni_wait_set_create(&ws) == 0);
	CHECK(disni_wait_set_add(ws, &a.channel) == 0);
	CHECK(disni_wait_set_add(ws, &b.channel) == 0);
	CHECK(disni_wait_set_add(ws, &a.channel) == EEXIST);
	CHECK(disni_wait_set_add(ws, NULL) == EINVAL);

	acks = 0;
	event(&a, &cq1);
	event(&a, &cq2);
	event(&b, &cq3);
	ret = disni_wait_set_await(ws, 60000, cookies, 8);
	CHECK(ret == 3);
	CHECK(cookies[0] == 7 && cookies[1] == 9 && cookies[2] == 11);
	CHECK(acks == 3);
	CHECK(disni_wait_set_await(ws, 0, cookies, 8) == 0);

	/* more events than room: the rest stay pending, in order */
	event(&a, &cq1);
	event(&a, &cq2);
	event(&b, &cq3);
	CHECK(disni_wait_set_await(ws, 0, cookies, 2) == 2);
	CHECK(cookies[0] == 7 && cookies[1] == 9);
	CHECK(disni_wait_set_await(ws, 0, cookies, 2) == 1);
	CHECK(cookies[0] == 11);
	CHECK(acks == 6);

	/* a channel that fills the room is served after the others next time */
	event(&a, &cq1);
	event(&a, &cq2);
	event(&a, &cq1);
	event(&b, &cq3);
	CHECK(disni_wait_set_await(ws, 0, cookies, 2) == 2);
	CHECK(cookies[0] == 7 && cookies[1] == 9);
	CHECK(disni_wait_set_await(ws, 0, cookies, 2) == 2);
	CHECK(cookies[0] == 11 && cookies[1] == 7);
	CHECK(disni_wait_set_await(ws, 0, cookies, 2) == 0);

	/* events and a wake-up in one await */
	event(&b, &cq2);
	CHECK(disni_wait_set_wake(ws) == 0);
	CHECK(disni_wait_set_await(ws, 0, cookies, 8) == (1 | DISNI_WAIT_SET_WOKEN));
	CHECK(cookies[0] == 9);

	disni_wait_set_destroy(ws);
	close_channel(&a);
	close_channel(&b);
}

static void test_dead_channel_fails_instead_of_spinning(void)
{
	struct disni_wait_set *ws = NULL;
	struct fake_channel a;
	int32_t cookies[4];

	open_channel(&a);
	CHECK(disni_wait_set_create(&ws) == 0);
	CHECK(disni_wait_set_add(ws, &a.channel) == 0);
	close(a.write_fd); /* POLLHUP, and read(2) returns 0: what a closed uverbs queue looks like */
	a.write_fd = -1;
	CHECK(disni_wait_set_await(ws, 60000, cookies, 4) == -EIO);
	/* a wake-up in the same await is reported; the failure waits for the next one */
	CHECK(disni_wait_set_wake(ws) == 0);
	CHECK(disni_wait_set_await(ws, 0, cookies, 4) == DISNI_WAIT_SET_WOKEN);
	CHECK(disni_wait_set_await(ws, 0, cookies, 4) == -EIO);
	disni_wait_set_destroy(ws);
	close_channel(&a);
}

static void test_full_set_refuses_with_enospc(void)
{
	struct disni_wait_set *ws = NULL;
	static struct ibv_comp_channel channels[DISNI_WAIT_SET_MAX_CHANNELS + 1];
	int i;

	CHECK(disni_wait_set_create(&ws) == 0);
	for (i = 0; i < DISNI_WAIT_SET_MAX_CHANNELS; i++) {
		channels[i].fd = -1; /* poll(2) ignores negative fds */
		CHECK(disni_wait_set_add(ws, &channels[i]) == 0);
	}
	CHECK(disni_wait_set_add(ws, &channels[DISNI_WAIT_SET_MAX_CHANNELS]) == ENOSPC);
	CHECK(disni_wait_set_wake(ws) == 0);
	CHECK(disni_wait_set_await(ws, 0, (int32_t[1]){0}, 1) == DISNI_WAIT_SET_WOKEN);
	disni_wait_set_destroy(ws);
}

int main(void)
{
	test_wake_is_sticky_and_consumed_once();
	test_events_of_many_queues_on_two_channels();
	test_dead_channel_fails_instead_of_spinning();
	test_full_set_refuses_with_enospc();
	if (failures != 0) {
		fprintf(stderr, "test_wait_set: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_wait_set: all checks passed\n");
	return 0;
}
