/*
 * org.rpcrdma4j.disni.ext.DisniExtensions, continued: completion channels shared by many
 * completion queues (a wait set, see disni_wait_set.h), the device's asynchronous events
 * (ibv_get_async_event) and descriptor waits for a connection manager (awaitDescriptors). Hot-path methods (await, wake) return 0, a count or a negative errno and
 * never throw; set-up methods throw IOException "... [errno N]" as the rest of libdisni does.
 */
#include "disni_jni.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "disni_wait_set.h"

#define CLASS(name) Java_org_rpcrdma4j_disni_ext_DisniExtensions_##name

/* Most descriptors one awaitDescriptors watches (the bit mask it returns has one bit each). */
#define DISNI_MAX_AWAITED_DESCRIPTORS 30

JNIEXPORT jlong JNICALL CLASS(openWaitSet)(JNIEnv *env, jclass cls)
{
	struct disni_wait_set *ws = NULL;
	int ret;

	(void)cls;
	ret = disni_wait_set_create(&ws);
	if (ret != 0) {
		disni_throw_errno(env, "eventfd for the completion channel", ret);
		return 0;
	}
	return DISNI_HANDLE(ws);
}

JNIEXPORT void JNICALL CLASS(addToWaitSet)(JNIEnv *env, jclass cls, jlong set_handle, jlong channel_handle)
{
	struct disni_wait_set *ws = DISNI_PTR(struct disni_wait_set, set_handle);
	int ret;

	(void)cls;
	if (ws == NULL) {
		disni_throw_errno(env, "adding to the completion channel (null channel)", EINVAL);
		return;
	}
	ret = disni_wait_set_add(ws, DISNI_PTR(struct ibv_comp_channel, channel_handle));
	if (ret != 0)
		disni_throw_errno(env, "adding an ibv_comp_channel to the completion channel", ret);
}

/* Returns the event count (+ WOKEN), 0, or a negative errno; see disni_wait_set_await. */
JNIEXPORT jint JNICALL CLASS(awaitWaitSet)(JNIEnv *env, jclass cls, jlong set_handle, jint timeout_ms, jintArray cookies,
		jint max)
{
	struct disni_wait_set *ws = DISNI_PTR(struct disni_wait_set, set_handle);
	int32_t taken[DISNI_WAIT_SET_MAX_EVENTS];
	int ret, n;

	(void)cls;
	if (ws == NULL || cookies == NULL || max <= 0 || (*env)->GetArrayLength(env, cookies) < max)
		return -EINVAL;
	ret = disni_wait_set_await(ws, timeout_ms, taken, max);
	if (ret < 0)
		return ret;
	n = ret & (DISNI_WAIT_SET_WOKEN - 1);
	if (n > 0)
		(*env)->SetIntArrayRegion(env, cookies, 0, n, (const jint *)taken);
	return ret;
}

JNIEXPORT jint JNICALL CLASS(wakeWaitSet)(JNIEnv *env, jclass cls, jlong set_handle)
{
	struct disni_wait_set *ws = DISNI_PTR(struct disni_wait_set, set_handle);

	(void)env;
	(void)cls;
	if (ws == NULL)
		return -EINVAL;
	return -disni_wait_set_wake(ws);
}

JNIEXPORT void JNICALL CLASS(closeWaitSet)(JNIEnv *env, jclass cls, jlong set_handle)
{
	(void)env;
	(void)cls;
	disni_wait_set_destroy(DISNI_PTR(struct disni_wait_set, set_handle));
}

/*
 * Sets a completion queue's cq_context, which ibv_get_cq_event hands back with each of its
 * events: the queue's cookie in its completion channel. Assumptions: the queue is not armed yet
 * (no event of it can be in flight).
 */
JNIEXPORT void JNICALL CLASS(setCompletionQueueCookie)(JNIEnv *env, jclass cls, jlong cq_handle, jint cookie)
{
	struct ibv_cq *cq = DISNI_PTR(struct ibv_cq, cq_handle);

	(void)cls;
	if (cq == NULL) {
		disni_throw_errno(env, "setting cq_context (null queue)", EINVAL);
		return;
	}
	cq->cq_context = (void *)(intptr_t)cookie;
}

/* Makes the device's asynchronous event fd non-blocking, so takeAsyncEvent never waits. */
JNIEXPORT void JNICALL CLASS(prepareAsyncEvents)(JNIEnv *env, jclass cls, jlong context_handle)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);
	int ret;

	(void)cls;
	if (context == NULL) {
		disni_throw_errno(env, "fcntl(O_NONBLOCK) on the async event fd (null context)", EINVAL);
		return;
	}
	ret = disni_set_nonblocking(context->async_fd);
	if (ret != 0)
		disni_throw_errno(env, "fcntl(O_NONBLOCK) on the async event fd", ret);
}

/* Whether an asynchronous event names a queue pair (element.qp). */
static int names_queue_pair(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return 1;
	default:
		return 0;
	}
}

/*
 * Takes one asynchronous event of the device without waiting and acknowledges it at once
 * (ibv_destroy_qp waits for the acknowledgement of its queue pair's events). Returns
 * (event_type << 32) | element, where element is the queue pair number for a queue pair event,
 * the port number for a port event, else 0; or a negative errno: -EAGAIN when none is pending.
 * Assumptions: prepareAsyncEvents ran on the context.
 */
JNIEXPORT jlong JNICALL CLASS(takeAsyncEvent)(JNIEnv *env, jclass cls, jlong context_handle)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);
	struct ibv_async_event event;
	uint32_t element = 0;
	int err;

	(void)env;
	(void)cls;
	if (context == NULL)
		return -EINVAL;
	errno = 0;
	if (ibv_get_async_event(context, &event) != 0) {
		err = errno;
		return -(jlong)(err == EWOULDBLOCK ? EAGAIN : (err != 0 ? err : EIO));
	}
	if (names_queue_pair(event.event_type))
		element = event.element.qp->qp_num;
	else if (event.event_type == IBV_EVENT_PORT_ACTIVE || event.event_type == IBV_EVENT_PORT_ERR
			|| event.event_type == IBV_EVENT_LID_CHANGE || event.event_type == IBV_EVENT_PKEY_CHANGE
			|| event.event_type == IBV_EVENT_SM_CHANGE || event.event_type == IBV_EVENT_CLIENT_REREGISTER
			|| event.event_type == IBV_EVENT_GID_CHANGE)
		element = (uint32_t)event.element.port_num;
	ibv_ack_async_event(&event);
	return ((jlong)event.event_type << 32) | (jlong)element;
}

/*
 * Descriptor waits, for a connection manager's events: one poll(2) on the manager's wake-up
 * eventfd, its rdma_cm event channel and the asynchronous event descriptors of the devices its
 * queue pairs live on, so that the connection-management thread sleeps until one of them has
 * something (no periodic wake-ups) and a close or another thread's hand-off wakes it at once.
 */

/* An eventfd for waking a descriptor wait (non-blocking, close-on-exec); throws on failure. */
JNIEXPORT jint JNICALL CLASS(openWakeup)(JNIEnv *env, jclass cls)
{
	int fd = disni_eventfd_open();

	(void)cls;
	if (fd < 0) {
		disni_throw_errno(env, "eventfd for the connection manager's wake-up", -fd);
		return -1;
	}
	return fd;
}

/* Rings a wake-up eventfd. Returns 0 or a negative errno; never blocks. */
JNIEXPORT jint JNICALL CLASS(ringWakeup)(JNIEnv *env, jclass cls, jint fd)
{
	(void)env;
	(void)cls;
	return -disni_eventfd_ring(fd);
}

JNIEXPORT void JNICALL CLASS(closeWakeup)(JNIEnv *env, jclass cls, jint fd)
{
	(void)env;
	(void)cls;
	if (fd >= 0)
		close(fd);
}

/*
 * The descriptor of an event channel as our libdisni hands it to Java (a struct disni_channel
 * around librdmacm's rdma_event_channel, see disni_jni.h), or -EINVAL.
 */
JNIEXPORT jint JNICALL CLASS(eventChannelDescriptor)(JNIEnv *env, jclass cls, jlong channel_handle)
{
	struct disni_channel *ch = DISNI_PTR(struct disni_channel, channel_handle);

	(void)env;
	(void)cls;
	return ch == NULL || ch->channel == NULL ? -EINVAL : ch->channel->fd;
}

/* The asynchronous event descriptor of a device context, or -EINVAL. */
JNIEXPORT jint JNICALL CLASS(asyncEventDescriptor)(JNIEnv *env, jclass cls, jlong context_handle)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);

	(void)env;
	(void)cls;
	return context == NULL ? -EINVAL : context->async_fd;
}

/*
 * Sleeps up to timeout_ms until one of fds[0..count) is readable. fds[0] is a wake-up eventfd:
 * when readable its counter is consumed. Returns a bit mask of the readable descriptors (bit i for
 * fds[i]; an error or hang-up condition counts as readable, so the caller's read reports it), 0 on
 * timeout or EINTR, or a negative errno (EBADF when a descriptor is not open: the caller must not
 * spin on it). Allocates nothing.
 */
JNIEXPORT jint JNICALL CLASS(awaitDescriptors)(JNIEnv *env, jclass cls, jintArray fds, jint count, jint timeout_ms)
{
	struct pollfd polled[DISNI_MAX_AWAITED_DESCRIPTORS];
	jint values[DISNI_MAX_AWAITED_DESCRIPTORS];
	int i, ready, mask = 0;

	(void)cls;
	if (fds == NULL || count <= 0 || count > DISNI_MAX_AWAITED_DESCRIPTORS || (*env)->GetArrayLength(env, fds) < count)
		return -EINVAL;
	(*env)->GetIntArrayRegion(env, fds, 0, count, values);
	for (i = 0; i < count; i++) {
		polled[i].fd = values[i];
		polled[i].events = POLLIN;
		polled[i].revents = 0;
	}
	ready = poll(polled, (nfds_t)count, timeout_ms < 0 ? 0 : timeout_ms);
	if (ready < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < count; i++) {
		if ((polled[i].revents & POLLNVAL) != 0)
			return -EBADF;
		if (polled[i].revents != 0)
			mask |= 1 << i;
	}
	if ((mask & 1) != 0) {
		int err = disni_eventfd_consume(values[0]);

		if (err != 0)
			return -err;
	}
	return mask;
}
