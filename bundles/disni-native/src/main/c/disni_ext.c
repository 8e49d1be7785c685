/*
 * org.rpcrdma4j.disni.ext.DisniExtensions: what DiSNI 2.1's NativeDispatcher cannot express and
 * the rpcrdma4j verbs contract needs: listing devices, querying a device's limits, accept and
 * reject with private data, connect with explicit READ depths, and the status and private data of
 * the last connection event. The class lives in this fragment, so it shares DiSNI's class loader
 * and therefore this library.
 */
#include "disni_jni.h"

#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define CLASS(name) Java_org_rpcrdma4j_disni_ext_DisniExtensions_##name

/* Indices of the int[] filled by queryDevice; DisniExtensions.java names the same values. */
enum {
	DEV_MAX_SGE,
	DEV_MAX_SGE_RD,
	DEV_MAX_QP_WR,
	DEV_MAX_CQE,
	DEV_MAX_QP_INIT_RD_ATOM,
	DEV_MAX_QP_RD_ATOM,
	DEV_TRANSPORT_TYPE,
	DEV_LINK_LAYER,
	DEV_CAP_FLAGS,
	DEV_MAX_MR_SIZE_MIB,
	DEV_FIELDS
};

JNIEXPORT jobjectArray JNICALL CLASS(deviceNames)(JNIEnv *env, jclass cls)
{
	struct ibv_device **list;
	jobjectArray names = NULL;
	jclass string_class;
	int count = 0, i;

	(void)cls;
	list = ibv_get_device_list(&count);
	if (list == NULL) {
		disni_throw_errno(env, "ibv_get_device_list", errno);
		return NULL;
	}
	string_class = (*env)->FindClass(env, "java/lang/String");
	if (string_class != NULL)
		names = (*env)->NewObjectArray(env, count, string_class, NULL);
	for (i = 0; names != NULL && i < count; i++) {
		jstring name = (*env)->NewStringUTF(env, ibv_get_device_name(list[i]));

		if (name == NULL) {
			names = NULL; /* OutOfMemoryError pending */
			break;
		}
		(*env)->SetObjectArrayElement(env, names, i, name);
		(*env)->DeleteLocalRef(env, name);
	}
	ibv_free_device_list(list);
	return names;
}

JNIEXPORT jstring JNICALL CLASS(deviceName)(JNIEnv *env, jclass cls, jlong context_handle)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);

	(void)cls;
	if (context == NULL) {
		disni_throw_errno(env, "ibv_get_device_name (null context)", EINVAL);
		return NULL;
	}
	return (*env)->NewStringUTF(env, ibv_get_device_name(context->device));
}

JNIEXPORT void JNICALL CLASS(queryDevice)(JNIEnv *env, jclass cls, jlong context_handle, jintArray out)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	jint values[DEV_FIELDS];
	int ret;

	(void)cls;
	if (context == NULL || out == NULL || (*env)->GetArrayLength(env, out) < DEV_FIELDS) {
		disni_throw_errno(env, "ibv_query_device (null context or short array)", EINVAL);
		return;
	}
	ret = ibv_query_device(context, &attr);
	if (ret != 0) {
		disni_throw_errno(env, "ibv_query_device", ret);
		return;
	}
	ret = ibv_query_port(context, 1, &port);
	if (ret != 0) {
		disni_throw_errno(env, "ibv_query_port", ret);
		return;
	}
	values[DEV_MAX_SGE] = attr.max_sge;
	values[DEV_MAX_SGE_RD] = attr.max_sge_rd;
	values[DEV_MAX_QP_WR] = attr.max_qp_wr;
	values[DEV_MAX_CQE] = attr.max_cqe;
	values[DEV_MAX_QP_INIT_RD_ATOM] = attr.max_qp_init_rd_atom;
	values[DEV_MAX_QP_RD_ATOM] = attr.max_qp_rd_atom;
	values[DEV_TRANSPORT_TYPE] = context->device->transport_type;
	values[DEV_LINK_LAYER] = port.link_layer;
	values[DEV_CAP_FLAGS] = (jint)attr.device_cap_flags;
	values[DEV_MAX_MR_SIZE_MIB] = attr.max_mr_size >> 20 > INT32_MAX ? INT32_MAX : (jint)(attr.max_mr_size >> 20);
	(*env)->SetIntArrayRegion(env, out, 0, DEV_FIELDS, values);
}

JNIEXPORT jint JNICALL CLASS(lastEventStatus)(JNIEnv *env, jclass cls, jlong channel_handle)
{
	struct disni_channel *ch = DISNI_PTR(struct disni_channel, channel_handle);

	(void)cls;
	if (ch == NULL) {
		disni_throw_errno(env, "lastEventStatus (null channel)", EINVAL);
		return 0;
	}
	return ch->last_status;
}

/*
 * The READ depths the peer asked for in the last event (a connect request's, or an accept's):
 * (initiator_depth << 8) | responder_resources.
 */
JNIEXPORT jint JNICALL CLASS(lastEventReadDepths)(JNIEnv *env, jclass cls, jlong channel_handle)
{
	struct disni_channel *ch = DISNI_PTR(struct disni_channel, channel_handle);

	(void)cls;
	if (ch == NULL) {
		disni_throw_errno(env, "lastEventReadDepths (null channel)", EINVAL);
		return 0;
	}
	return ((jint)ch->last_initiator_depth << 8) | ch->last_responder_resources;
}

/* Copies the last event's private data into a direct buffer from index 0; returns the length. */
JNIEXPORT jint JNICALL CLASS(lastEventPrivateData)(JNIEnv *env, jclass cls, jlong channel_handle, jobject buffer)
{
	struct disni_channel *ch = DISNI_PTR(struct disni_channel, channel_handle);
	void *address;

	(void)cls;
	if (ch == NULL || buffer == NULL) {
		disni_throw_errno(env, "lastEventPrivateData (null channel or buffer)", EINVAL);
		return 0;
	}
	address = (*env)->GetDirectBufferAddress(env, buffer);
	if (address == NULL || (*env)->GetDirectBufferCapacity(env, buffer) < ch->last_private_data_len) {
		disni_throw_errno(env, "lastEventPrivateData (not a direct buffer of 255 bytes)", EINVAL);
		return 0;
	}
	memcpy(address, ch->last_private_data, ch->last_private_data_len);
	return ch->last_private_data_len;
}

/* Reads [0, length) of a direct buffer (or none) for rdma_conn_param; 0 or an errno. */
static int private_data_of(JNIEnv *env, jobject buffer, jint length, const void **data, uint8_t *len)
{
	*data = NULL;
	*len = 0;
	if (length == 0)
		return 0;
	if (buffer == NULL || length < 0 || length > 255)
		return EINVAL;
	*data = (*env)->GetDirectBufferAddress(env, buffer);
	if (*data == NULL || (*env)->GetDirectBufferCapacity(env, buffer) < length)
		return EINVAL;
	*len = (uint8_t)length;
	return 0;
}

JNIEXPORT void JNICALL CLASS(connect)(JNIEnv *env, jclass cls, jlong id_handle, jobject data, jint length,
		jint initiator_depth, jint responder_resources, jint retry_count, jint rnr_retry_count)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);
	struct rdma_conn_param param;
	int ret;

	(void)cls;
	memset(&param, 0, sizeof(param));
	ret = id == NULL ? EINVAL : private_data_of(env, data, length, &param.private_data, &param.private_data_len);
	if (ret != 0) {
		disni_throw_errno(env, "rdma_connect (null id or bad private data)", ret);
		return;
	}
	param.initiator_depth = (uint8_t)initiator_depth;
	param.responder_resources = (uint8_t)responder_resources;
	param.retry_count = (uint8_t)retry_count;
	param.rnr_retry_count = (uint8_t)rnr_retry_count;
	if (rdma_connect(id, &param) != 0)
		disni_throw_errno(env, "rdma_connect", errno);
}

JNIEXPORT void JNICALL CLASS(accept)(JNIEnv *env, jclass cls, jlong id_handle, jobject data, jint length,
		jint initiator_depth, jint responder_resources, jint rnr_retry_count)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);
	struct rdma_conn_param param;
	int ret;

	(void)cls;
	memset(&param, 0, sizeof(param));
	ret = id == NULL ? EINVAL : private_data_of(env, data, length, &param.private_data, &param.private_data_len);
	if (ret != 0) {
		disni_throw_errno(env, "rdma_accept (null id or bad private data)", ret);
		return;
	}
	param.initiator_depth = (uint8_t)initiator_depth;
	param.responder_resources = (uint8_t)responder_resources;
	param.rnr_retry_count = (uint8_t)rnr_retry_count;
	if (rdma_accept(id, &param) != 0)
		disni_throw_errno(env, "rdma_accept", errno);
}

JNIEXPORT void JNICALL CLASS(reject)(JNIEnv *env, jclass cls, jlong id_handle, jobject data, jint length)
{
	struct rdma_cm_id *id = DISNI_PTR(struct rdma_cm_id, id_handle);
	const void *private_data;
	uint8_t len;
	int ret;

	(void)cls;
	ret = id == NULL ? EINVAL : private_data_of(env, data, length, &private_data, &len);
	if (ret != 0) {
		disni_throw_errno(env, "rdma_reject (null id or bad private data)", ret);
		return;
	}
	if (rdma_reject(id, private_data, len) != 0)
		disni_throw_errno(env, "rdma_reject", errno);
}

/* Indices of the int[] filled by queryQueuePair; DisniExtensions.java names the same values. */
enum {
	QP_STATE,
	QP_MAX_SEND_WR,
	QP_MAX_RECV_WR,
	QP_FIELDS
};

/*
 * The queue pair's state and the queue sizes the device really gave it (ibv_query_qp). Devices
 * round the sizes asked for at creation up (rxe to a power of two minus one), and a post fails
 * with ENOMEM only beyond these.
 */
JNIEXPORT void JNICALL CLASS(queryQueuePair)(JNIEnv *env, jclass cls, jlong qp_handle, jintArray out)
{
	struct ibv_qp *qp = DISNI_PTR(struct ibv_qp, qp_handle);
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	jint values[QP_FIELDS];
	int ret;

	(void)cls;
	if (qp == NULL || out == NULL || (*env)->GetArrayLength(env, out) < QP_FIELDS) {
		disni_throw_errno(env, "ibv_query_qp (null queue pair or short array)", EINVAL);
		return;
	}
	memset(&attr, 0, sizeof(attr));
	memset(&init, 0, sizeof(init));
	ret = ibv_query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CAP, &init);
	if (ret != 0) {
		disni_throw_errno(env, "ibv_query_qp", ret);
		return;
	}
	values[QP_STATE] = attr.qp_state;
	values[QP_MAX_SEND_WR] = (jint)attr.cap.max_send_wr;
	values[QP_MAX_RECV_WR] = (jint)attr.cap.max_recv_wr;
	(*env)->SetIntArrayRegion(env, out, 0, QP_FIELDS, values);
}

/*
 * Posts send records that the Java side wrote itself (SendPoster): the same records and
 * translation as NativeDispatcher._postSend, without DiSNI's stateful call, whose shape (opcode,
 * SGE count, one request) is fixed when it is built: a chain of any shape in one ibv_post_send.
 */
JNIEXPORT void JNICALL CLASS(postSend)(JNIEnv *env, jclass cls, jlong qp_handle, jlong first_record)
{
	(void)cls;
	disni_post_send(env, qp_handle, first_record);
}

/* Posts receive records the Java side wrote itself (ReceivePoster) with one ibv_post_recv. */
JNIEXPORT void JNICALL CLASS(postReceive)(JNIEnv *env, jclass cls, jlong qp_handle, jlong first_record)
{
	(void)cls;
	disni_post_recv(env, qp_handle, first_record);
}
