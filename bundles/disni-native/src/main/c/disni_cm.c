/*
 * com.ibm.disni.verbs.impl.NativeDispatcher: the connection-manager methods (librdmacm).
 *
 * Life cycle owned by DiSNI's Java side: an event channel outlives its ids; an id outlives its
 * queue pair. Every object created here has its destroy method below (_destroyEventChannel,
 * _destroyCmId, _destroyQP, _destroyEp).
 */
#include "disni_jni.h"

#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>

#define CLASS(name) Java_com_ibm_disni_verbs_impl_NativeDispatcher_##name

#include <stdlib.h>

/* Reads the device's READ limits for rdma_conn_param; 0 or an errno. */
static int query_read_depths(struct rdma_cm_id *id, uint8_t *initiator_depth, uint8_t *responder_resources)
{
	struct ibv_device_attr attr;
	int ret;

	if (id->verbs == NULL)
		return EINVAL; /* not bound to a device: no address resolved, no connect request */
	ret = ibv_query_device(id->verbs, &attr);
	if (ret != 0)
		return ret;
	*initiator_depth = attr.max_qp_init_rd_atom > 255 ? 255 : (uint8_t)attr.max_qp_init_rd_atom;
	*responder_resources = attr.max_qp_rd_atom > 255 ? 255 : (uint8_t)attr.max_qp_rd_atom;
	return 0;
}

static socklen_t sockaddr_length(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return sizeof(struct sockaddr);
	}
}

/* Copies an address of the id into DiSNI's 28-byte SockAddrIn buffer; 0 or a negative errno. */
static jint copy_address(jlong id_handle, jlong buffer, int peer)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);
	struct sockaddr *sa;
	socklen_t len;

	if (id == NULL || buffer == 0)
		return -EINVAL;
	sa = peer ? rdma_get_peer_addr(id) : rdma_get_local_addr(id);
	len = sockaddr_length(sa);
	if (len > DISNI_SOCKADDR_BUFFER)
		return -EAFNOSUPPORT;
	memset(DISNI_PTR(void, buffer), 0, DISNI_SOCKADDR_BUFFER);
	memcpy(DISNI_PTR(void, buffer), sa, len);
	return 0;
}

/* The channel handle is a struct disni_channel (see disni_jni.h), created and freed here. */
JNIEXPORT jlong JNICALL CLASS(_1createEventChannel)(JNIEnv *env, jobject self)
{
	struct disni_channel *ch;
	int ret;

	(void)self;
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		disni_throw_errno(env, "rdma_create_event_channel (allocate)", ENOMEM);
		return -1;
	}
	ch->channel = rdma_create_event_channel();
	if (ch->channel == NULL) {
		ret = errno;
		free(ch);
		disni_throw_errno(env, "rdma_create_event_channel", ret);
		return -1;
	}
	/* _getCmEvent polls first; non-blocking guarantees a lost race never blocks the caller. */
	ret = disni_set_nonblocking(ch->channel->fd);
	if (ret != 0) {
		rdma_destroy_event_channel(ch->channel);
		free(ch);
		disni_throw_errno(env, "fcntl(O_NONBLOCK) on the rdma_cm event channel", ret);
		return -1;
	}
	return DISNI_HANDLE(ch);
}

JNIEXPORT jint JNICALL CLASS(_1destroyEventChannel)(JNIEnv *env, jobject self, jlong channel_handle)
{
	struct disni_channel *ch = DISNI_PTR(struct disni_channel, channel_handle);

	(void)env;
	(void)self;
	if (ch == NULL)
		return -EINVAL;
	rdma_destroy_event_channel(ch->channel);
	free(ch);
	return 0;
}

JNIEXPORT jlong JNICALL CLASS(_1createId)(JNIEnv *env, jobject self, jlong channel_handle, jshort port_space)
{
	struct disni_channel *ch = DISNI_PTR(struct disni_channel, channel_handle);
	struct rdma_cm_id *id = NULL;

	(void)self;
	if (ch == NULL) {
		disni_throw_errno(env, "rdma_create_id (no event channel)", EINVAL);
		return -1;
	}
	if (rdma_create_id(ch->channel, &id, NULL, (enum rdma_port_space)(uint16_t)port_space) != 0) {
		disni_throw_errno(env, "rdma_create_id", errno);
		return -1;
	}
	return DISNI_HANDLE(id);
}

JNIEXPORT jint JNICALL CLASS(_1destroyCmId)(JNIEnv *env, jobject self, jlong id_handle)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);

	(void)env;
	(void)self;
	if (id == NULL)
		return -EINVAL;
	if (rdma_destroy_id(id) != 0)
		return -errno;
	return 0;
}

JNIEXPORT jint JNICALL CLASS(_1destroyEp)(JNIEnv *env, jobject self, jlong id_handle)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);

	(void)env;
	(void)self;
	if (id == NULL)
		return -EINVAL;
	/* Destroys the id's queue pair (if any) and the id. */
	rdma_destroy_ep(id);
	return 0;
}

JNIEXPORT jlong JNICALL CLASS(_1createQP)(JNIEnv *env, jobject self, jlong id_handle, jlong pd_handle,
		jlong send_cq_handle, jlong recv_cq_handle, jint qp_type, jint max_send_wr, jint max_recv_wr,
		jint max_inline_data)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);
	struct ibv_pd *pd = DISNI_PTR(struct ibv_pd, pd_handle);
	struct ibv_qp_init_attr init;
	struct ibv_device_attr dev;
	uint32_t max_sge;
	int ret;

	(void)self;
	if (id == NULL || pd == NULL || send_cq_handle == 0 || recv_cq_handle == 0) {
		disni_throw_errno(env, "rdma_create_qp (null id, pd or completion queue)", EINVAL);
		return -1;
	}
	if (id->qp != NULL) {
		disni_throw_errno(env, "rdma_create_qp (the id has a queue pair already)", EEXIST);
		return -1;
	}
	if (max_send_wr <= 0 || max_recv_wr <= 0 || max_inline_data < 0) {
		disni_throw_errno(env, "rdma_create_qp (queue depths must be positive)", EINVAL);
		return -1;
	}
	ret = ibv_query_device(pd->context, &dev);
	if (ret != 0) {
		disni_throw_errno(env, "ibv_query_device", ret);
		return -1;
	}
	/* DiSNI 2.1 passes no SGE count: allow the device's, capped to keep WQEs small. */
	max_sge = dev.max_sge > 0 && (uint32_t)dev.max_sge < DISNI_QP_MAX_SGE ? (uint32_t)dev.max_sge : DISNI_QP_MAX_SGE;
	memset(&init, 0, sizeof(init));
	init.send_cq = DISNI_PTR(struct ibv_cq, send_cq_handle);
	init.recv_cq = DISNI_PTR(struct ibv_cq, recv_cq_handle);
	init.qp_type = (enum ibv_qp_type)qp_type;
	init.cap.max_send_wr = (uint32_t)max_send_wr;
	init.cap.max_recv_wr = (uint32_t)max_recv_wr;
	init.cap.max_send_sge = max_sge;
	init.cap.max_recv_sge = max_sge;
	init.cap.max_inline_data = (uint32_t)max_inline_data;
	if (rdma_create_qp(id, pd, &init) != 0) {
		disni_throw_errno(env, "rdma_create_qp", errno);
		return -1;
	}
	return DISNI_HANDLE(id->qp);
}

JNIEXPORT jint JNICALL CLASS(_1destroyQP)(JNIEnv *env, jobject self, jlong id_handle)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);

	(void)env;
	(void)self;
	if (id == NULL || id->qp == NULL)
		return -EINVAL;
	rdma_destroy_qp(id);
	return 0;
}

JNIEXPORT void JNICALL CLASS(_1bindAddr)(JNIEnv *env, jobject self, jlong id_handle, jlong address)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);

	(void)self;
	if (id == NULL || address == 0) {
		disni_throw_errno(env, "rdma_bind_addr (null id or address)", EINVAL);
		return;
	}
	if (rdma_bind_addr(id, DISNI_PTR(struct sockaddr, address)) != 0)
		disni_throw_errno(env, "rdma_bind_addr", errno);
}

JNIEXPORT void JNICALL CLASS(_1listen)(JNIEnv *env, jobject self, jlong id_handle, jint backlog)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);

	(void)self;
	if (id == NULL) {
		disni_throw_errno(env, "rdma_listen (null id)", EINVAL);
		return;
	}
	if (rdma_listen(id, backlog) != 0)
		disni_throw_errno(env, "rdma_listen", errno);
}

JNIEXPORT void JNICALL CLASS(_1resolveAddr)(JNIEnv *env, jobject self, jlong id_handle, jlong source,
		jlong destination, jint timeout_ms)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);

	(void)self;
	if (id == NULL || destination == 0) {
		disni_throw_errno(env, "rdma_resolve_addr (null id or destination)", EINVAL);
		return;
	}
	if (rdma_resolve_addr(id, DISNI_PTR(struct sockaddr, source), DISNI_PTR(struct sockaddr, destination),
			timeout_ms) != 0)
		disni_throw_errno(env, "rdma_resolve_addr", errno);
}

JNIEXPORT void JNICALL CLASS(_1resolveRoute)(JNIEnv *env, jobject self, jlong id_handle, jint timeout_ms)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);

	(void)self;
	if (id == NULL) {
		disni_throw_errno(env, "rdma_resolve_route (null id)", EINVAL);
		return;
	}
	if (rdma_resolve_route(id, timeout_ms) != 0)
		disni_throw_errno(env, "rdma_resolve_route", errno);
}

/*
 * Waits up to timeout_ms for one event and acknowledges it at once: DiSNI's Java side copies the
 * event type and the two ids out (listen id, or -1, then the event's id into the two longs at
 * listen_out and id_out) and keeps no reference to the native event, so there is nothing left to
 * acknowledge in _ackCmEvent. The event's status and private data are kept in the channel for
 * DisniExtensions.lastEvent* (DiSNI 2.1 has no way to return them). Returns the
 * rdma_cm_event_type, or a negative errno (-ETIMEDOUT when nothing arrived in time, -EAGAIN when
 * another thread took the event).
 */
JNIEXPORT jint JNICALL CLASS(_1getCmEvent)(JNIEnv *env, jobject self, jlong channel_handle, jlong listen_out,
		jlong id_out, jint timeout_ms)
{
	struct disni_channel *ch = DISNI_PTR(struct disni_channel, channel_handle);
	struct rdma_cm_event *event;
	const struct rdma_conn_param *conn;
	jint type;
	int ret;

	(void)env;
	(void)self;
	if (ch == NULL || listen_out == 0 || id_out == 0)
		return -EINVAL;
	ret = disni_wait_readable(ch->channel->fd, timeout_ms);
	if (ret != 0)
		return -ret;
	if (rdma_get_cm_event(ch->channel, &event) != 0)
		return -errno;
	type = (jint)event->event;
	*DISNI_PTR(int64_t, listen_out) = event->listen_id != NULL ? (int64_t)(uintptr_t)event->listen_id : -1;
	*DISNI_PTR(int64_t, id_out) = event->id != NULL ? (int64_t)(uintptr_t)event->id : -1;
	ch->last_status = event->status;
	ch->last_private_data_len = 0;
	ch->last_initiator_depth = 0;
	ch->last_responder_resources = 0;
	conn = &event->param.conn;
	if (event->id != NULL && event->id->ps == RDMA_PS_TCP) {
		ch->last_initiator_depth = conn->initiator_depth;
		ch->last_responder_resources = conn->responder_resources;
	}
	if (event->id != NULL && event->id->ps == RDMA_PS_TCP && conn->private_data != NULL && conn->private_data_len > 0) {
		memcpy(ch->last_private_data, conn->private_data, conn->private_data_len);
		ch->last_private_data_len = conn->private_data_len;
	}
	if (rdma_ack_cm_event(event) != 0)
		return -errno;
	return type;
}

/* Events are acknowledged by _getCmEvent (see there); acknowledging again is a successful no-op. */
JNIEXPORT jint JNICALL CLASS(_1ackCmEvent)(JNIEnv *env, jobject self, jint event_type)
{
	(void)env;
	(void)self;
	return event_type >= 0 ? 0 : -EINVAL;
}

JNIEXPORT void JNICALL CLASS(_1connect)(JNIEnv *env, jobject self, jlong id_handle, jint retry_count,
		jint rnr_retry_count, jlong private_data, jbyte private_data_len)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);
	struct rdma_conn_param param;
	int ret;

	(void)self;
	if (id == NULL || (private_data == 0 && private_data_len != 0)) {
		disni_throw_errno(env, "rdma_connect (null id or private data)", EINVAL);
		return;
	}
	memset(&param, 0, sizeof(param));
	ret = query_read_depths(id, &param.initiator_depth, &param.responder_resources);
	if (ret != 0) {
		disni_throw_errno(env, "rdma_connect (query device)", ret);
		return;
	}
	param.retry_count = (uint8_t)retry_count;
	param.rnr_retry_count = (uint8_t)rnr_retry_count;
	param.private_data = DISNI_PTR(const void, private_data);
	param.private_data_len = (uint8_t)private_data_len;
	if (rdma_connect(id, &param) != 0)
		disni_throw_errno(env, "rdma_connect", errno);
}

JNIEXPORT void JNICALL CLASS(_1accept)(JNIEnv *env, jobject self, jlong id_handle, jint retry_count,
		jint rnr_retry_count)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);
	struct rdma_conn_param param;
	int ret;

	(void)self;
	if (id == NULL) {
		disni_throw_errno(env, "rdma_accept (null id)", EINVAL);
		return;
	}
	memset(&param, 0, sizeof(param));
	ret = query_read_depths(id, &param.initiator_depth, &param.responder_resources);
	if (ret != 0) {
		disni_throw_errno(env, "rdma_accept (query device)", ret);
		return;
	}
	param.retry_count = (uint8_t)retry_count;
	param.rnr_retry_count = (uint8_t)rnr_retry_count;
	if (rdma_accept(id, &param) != 0)
		disni_throw_errno(env, "rdma_accept", errno);
}

JNIEXPORT jint JNICALL CLASS(_1disconnect)(JNIEnv *env, jobject self, jlong id_handle)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);

	(void)env;
	(void)self;
	if (id == NULL)
		return -EINVAL;
	if (rdma_disconnect(id) != 0)
		return -errno;
	return 0;
}

JNIEXPORT jint JNICALL CLASS(_1getSrcAddr)(JNIEnv *env, jobject self, jlong id_handle, jlong buffer)
{
	(void)env;
	(void)self;
	return copy_address(id_handle, buffer, 0);
}

JNIEXPORT jint JNICALL CLASS(_1getDstAddr)(JNIEnv *env, jobject self, jlong id_handle, jlong buffer)
{
	(void)env;
	(void)self;
	return copy_address(id_handle, buffer, 1);
}

/* Returns the id's device context, or -1 while the id is bound to no device (DiSNI: "no verbs"). */
JNIEXPORT jlong JNICALL CLASS(_1getContext)(JNIEnv *env, jobject self, jlong id_handle)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);

	(void)self;
	if (id == NULL) {
		disni_throw_errno(env, "getContext (null id)", EINVAL);
		return -1;
	}
	return id->verbs != NULL ? DISNI_HANDLE(id->verbs) : -1;
}
