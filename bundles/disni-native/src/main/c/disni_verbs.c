/*
 * com.ibm.disni.verbs.impl.NativeDispatcher: the verbs methods (libibverbs).
 *
^ * Marshalling (DiSNI 2.1's Java side, all in native byte order, in direct buffers it owns):
 *
 *   send work request, NatIbvSendWR.CSIZE = 72 bytes, chained by absolute "next" addresses:
 *     0 wr_id u64 | 8 next u64 | 16 sg_list u64 | 24 num_sge i32 | 28 opcode i32 |
 *    32 send_flags u32 | 36 imm_data (or the rkey to invalidate) u32 |
 *    40 remote_addr u64 | 48 rkey u32 | 52 reserved u32 | 56..71 unused
 *   receive work request, NatIbvRecvWR.CSIZE = 32: wr_id u64 | next u64 | sg_list u64 | num_sge i32 | pad
 *   SGE, NatIbvSge.CSIZE = 16: addr u64 | length u32 | lkey u32            (== struct ibv_sge)
 *   completion, IbvWC.CSIZE = 48: read back as struct ibv_wc               (== struct ibv_wc)
 *   registration result (NatRegMrCall): lkey i32 | rkey i32 | handle i32 at three addresses
 *   socket address, SockAddrIn.CSIZE = 28: a struct sockaddr_in (DiSNI speaks IPv4), room for a
 *     struct sockaddr_in6
 *
 * The 72-byte send record is shorter than struct ibv_send_wr (128 bytes), so posts are translated
 * into real work requests (the SGE arrays are used in place); receives are translated the same way.
 */
#include "disni_jni.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>

#include "disni_records.h"

#define CLASS(name) Java_com_ibm_disni_verbs_impl_NativeDispatcher_##name

/*
 * The errno of a failed ibv_post_send / ibv_post_recv. Providers disagree on the sign: rxe of
 * rdma-core returns -ENOMEM for a full queue (post_one_send: "return -ENOMEM") where verbs.h
 * documents a positive errno, as mlx5 returns it.
 */
static int post_errno(int ret)
{
	return ret < 0 ? -ret : ret;
}

/*
 * Posts the chain of send records starting at list with one ibv_post_send: one doorbell for the
 * whole chain. On failure throws with the index of the request that failed (bad_wr); the ones
 * before it were posted.
 */
void disni_post_send(JNIEnv *env, jlong qp_handle, jlong list)
{
	struct ibv_qp *qp = DISNI_PTR(struct ibv_qp, qp_handle);
	struct ibv_send_wr stack_wrs[DISNI_STACK_CHAIN];
	struct ibv_send_wr *wrs = stack_wrs;
	struct ibv_send_wr *bad = NULL;
	int n, unsupported, ret;

	if (qp == NULL || list == 0) {
		disni_throw_post(env, "ibv_post_send (null queue pair or list)", EINVAL, 0);
		return;
	}
	n = disni_chain_length((uint64_t)list, offsetof(struct disni_send_record, next));
	if (n == 0) {
		disni_throw_post(env, "ibv_post_send (chain longer than 4096)", EINVAL, 0);
		return;
	}
	if (n > DISNI_STACK_CHAIN) {
		wrs = calloc((size_t)n, sizeof(*wrs));
		if (wrs == NULL) {
			disni_throw_post(env, "ibv_post_send (translate chain)", ENOMEM, 0);
			return;
		}
	}
	unsupported = disni_translate_sends((uint64_t)list, wrs, n);
	if (unsupported >= 0) {
		/* Nothing was posted: the whole chain is refused at the first request. */
		disni_throw_post(env, "ibv_post_send (opcode the DiSNI record cannot carry)", EINVAL, unsupported);
	} else {
		ret = ibv_post_send(qp, wrs, &bad);
		if (ret != 0)
			disni_throw_post(env, "ibv_post_send", post_errno(ret), bad != NULL ? (int)(bad - wrs) : 0);
	}
	if (wrs != stack_wrs)
		free(wrs);
}

/* Posts the chain of receive records starting at list with one ibv_post_recv; as above. */
void disni_post_recv(JNIEnv *env, jlong qp_handle, jlong list)
{
	struct ibv_qp *qp = DISNI_PTR(struct ibv_qp, qp_handle);
	struct ibv_recv_wr stack_wrs[DISNI_STACK_CHAIN];
	struct ibv_recv_wr *wrs = stack_wrs;
	struct ibv_recv_wr *bad = NULL;
	int n, ret;

	if (qp == NULL || list == 0) {
		disni_throw_post(env, "ibv_post_recv (null queue pair or list)", EINVAL, 0);
		return;
	}
	n = disni_chain_length((uint64_t)list, offsetof(struct disni_recv_record, next));
	if (n == 0) {
		disni_throw_post(env, "ibv_post_recv (chain longer than 4096)", EINVAL, 0);
		return;
	}
	if (n > DISNI_STACK_CHAIN) {
		wrs = calloc((size_t)n, sizeof(*wrs));
		if (wrs == NULL) {
			disni_throw_post(env, "ibv_post_recv (translate chain)", ENOMEM, 0);
			return;
		}
	}
	disni_translate_recvs((uint64_t)list, wrs, n);
	ret = ibv_post_recv(qp, wrs, &bad);
	if (ret != 0)
		disni_throw_post(env, "ibv_post_recv", post_errno(ret), bad != NULL ? (int)(bad - wrs) : 0);
	if (wrs != stack_wrs)
		free(wrs);
}

JNIEXPORT void JNICALL CLASS(_1postSend)(JNIEnv *env, jobject self, jlong qp_handle, jlong list)
{
	(void)self;
	disni_post_send(env, qp_handle, list);
}

JNIEXPORT void JNICALL CLASS(_1postRecv)(JNIEnv *env, jobject self, jlong qp_handle, jlong list)
{
	(void)self;
	disni_post_recv(env, qp_handle, list);
}

/* Polls up to ne completions into the caller's array of struct ibv_wc; count or negative errno. */
JNIEXPORT jint JNICALL CLASS(_1pollCQ)(JNIEnv *env, jobject self, jlong cq_handle, jint ne, jlong wc_array)
{
	struct ibv_cq *cq = DISNI_PTR(struct ibv_cq, cq_handle);
	int ret;

	(void)self;
	if (cq == NULL || wc_array == 0 || ne < 0) {
		disni_throw_errno(env, "ibv_poll_cq (null queue or array)", EINVAL);
		return -EINVAL;
	}
	ret = ibv_poll_cq(cq, ne, DISNI_PTR(struct ibv_wc, wc_array));
	if (ret < 0)
		return ret == -1 ? -EIO : ret; /* providers return -1 or a negative errno */
	return ret;
}

JNIEXPORT jint JNICALL CLASS(_1reqNotifyCQ)(JNIEnv *env, jobject self, jlong cq_handle, jint solicited_only)
{
	struct ibv_cq *cq = DISNI_PTR(struct ibv_cq, cq_handle);
	int ret;

	(void)self;
	if (cq == NULL) {
		disni_throw_errno(env, "ibv_req_notify_cq (null queue)", EINVAL);
		return -EINVAL;
	}
	ret = ibv_req_notify_cq(cq, solicited_only != 0);
	return ret == 0 ? 0 : -ret;
}

/*
 * Waits up to timeout_ms for a completion event on the channel and takes it (ibv_get_cq_event).
 * Returns 0; the caller MUST acknowledge it with _ackCqEvent on the queue. -ETIMEDOUT when none
 * came, -EAGAIN when another thread took it.
 */
JNIEXPORT jint JNICALL CLASS(_1getCqEvent)(JNIEnv *env, jobject self, jlong channel_handle, jint timeout_ms)
{
	struct ibv_comp_channel *channel = DISNI_PTR(struct ibv_comp_channel, channel_handle);
	struct ibv_cq *cq;
	void *cq_context;
	int ret;

	(void)self;
	if (channel == NULL) {
		disni_throw_errno(env, "ibv_get_cq_event (null channel)", EINVAL);
		return -EINVAL;
	}
	ret = disni_wait_readable(channel->fd, timeout_ms);
	if (ret != 0)
		return -ret;
	if (ibv_get_cq_event(channel, &cq, &cq_context) != 0)
		return -errno;
	return 0;
}

JNIEXPORT jint JNICALL CLASS(_1ackCqEvent)(JNIEnv *env, jobject self, jlong cq_handle, jint nevents)
{
	struct ibv_cq *cq = DISNI_PTR(struct ibv_cq, cq_handle);

	(void)env;
	(void)self;
	if (cq == NULL || nevents <= 0)
		return -EINVAL;
	ibv_ack_cq_events(cq, (unsigned int)nevents);
	return 0;
}

JNIEXPORT jlong JNICALL CLASS(_1allocPd)(JNIEnv *env, jobject self, jlong context_handle)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);
	struct ibv_pd *pd;

	(void)self;
	if (context == NULL) {
		disni_throw_errno(env, "ibv_alloc_pd (null context)", EINVAL);
		return -1;
	}
	pd = ibv_alloc_pd(context);
	if (pd == NULL) {
		disni_throw_errno(env, "ibv_alloc_pd", errno != 0 ? errno : ENOMEM);
		return -1;
	}
	return DISNI_HANDLE(pd);
}

JNIEXPORT jint JNICALL CLASS(_1deallocPd)(JNIEnv *env, jobject self, jlong pd_handle)
{
	struct ibv_pd *pd = DISNI_PTR(struct ibv_pd, pd_handle);
	int ret;

	(void)env;
	(void)self;
	if (pd == NULL)
		return -EINVAL;
	ret = ibv_dealloc_pd(pd);
	return ret == 0 ? 0 : -ret;
}

JNIEXPORT jint JNICALL CLASS(_1getPdHandle)(JNIEnv *env, jobject self, jlong pd_handle)
{
	struct ibv_pd *pd = DISNI_PTR(struct ibv_pd, pd_handle);

	(void)self;
	if (pd == NULL) {
		disni_throw_errno(env, "getPdHandle (null pd)", EINVAL);
		return -1;
	}
	return (jint)pd->handle;
}

JNIEXPORT jlong JNICALL CLASS(_1createCompChannel)(JNIEnv *env, jobject self, jlong context_handle)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);
	struct ibv_comp_channel *channel;
	int ret;

	(void)self;
	if (context == NULL) {
		disni_throw_errno(env, "ibv_create_comp_channel (null context)", EINVAL);
		return -1;
	}
	channel = ibv_create_comp_channel(context);
	if (channel == NULL) {
		disni_throw_errno(env, "ibv_create_comp_channel", errno);
		return -1;
	}
	/* _getCqEvent polls first; non-blocking guarantees a lost race never blocks the caller. */
	ret = disni_set_nonblocking(channel->fd);
	if (ret != 0) {
		ibv_destroy_comp_channel(channel);
		disni_throw_errno(env, "fcntl(O_NONBLOCK) on the completion channel", ret);
		return -1;
	}
	return DISNI_HANDLE(channel);
}

JNIEXPORT jint JNICALL CLASS(_1destroyCompChannel)(JNIEnv *env, jobject self, jlong channel_handle)
{
	struct ibv_comp_channel *channel = DISNI_PTR(struct ibv_comp_channel, channel_handle);
	int ret;

	(void)env;
	(void)self;
	if (channel == NULL)
		return -EINVAL;
	ret = ibv_destroy_comp_channel(channel);
	return ret == 0 ? 0 : -ret;
}

JNIEXPORT jlong JNICALL CLASS(_1createCQ)(JNIEnv *env, jobject self, jlong context_handle, jlong channel_handle,
		jint ncqe, jint comp_vector)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);
	struct ibv_cq *cq;

	(void)self;
	if (context == NULL || channel_handle == 0 || ncqe <= 0 || comp_vector < 0) {
		disni_throw_errno(env, "ibv_create_cq (null context or channel, or bad size)", EINVAL);
		return -1;
	}
	cq = ibv_create_cq(context, ncqe, NULL, DISNI_PTR(struct ibv_comp_channel, channel_handle), comp_vector);
	if (cq == NULL) {
		disni_throw_errno(env, "ibv_create_cq", errno);
		return -1;
	}
	return DISNI_HANDLE(cq);
}

JNIEXPORT jint JNICALL CLASS(_1destroyCQ)(JNIEnv *env, jobject self, jlong cq_handle)
{
	struct ibv_cq *cq = DISNI_PTR(struct ibv_cq, cq_handle);
	int ret;

	(void)env;
	(void)self;
	if (cq == NULL)
		return -EINVAL;
	ret = ibv_destroy_cq(cq);
	return ret == 0 ? 0 : -ret;
}

/*
 * DiSNI 2.1's RdmaVerbsNat.modifyQP always passes attr 0: it serialises no ibv_qp_attr. With 0
 * there is nothing to change; the call reports the queue pair's current state (ibv_query_qp)
 * instead. Any other attr value is refused (EINVAL): no layout for it is defined.
 */
JNIEXPORT jint JNICALL CLASS(_1modifyQP)(JNIEnv *env, jobject self, jlong qp_handle, jlong attr_handle)
{
	struct ibv_qp *qp = DISNI_PTR(struct ibv_qp, qp_handle);
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	int ret;

	(void)self;
	if (qp == NULL || attr_handle != 0) {
		disni_throw_errno(env, "ibv_modify_qp (null queue pair, or attributes DiSNI cannot marshal)", EINVAL);
		return -EINVAL;
	}
	ret = ibv_query_qp(qp, &attr, IBV_QP_STATE, &init);
	if (ret != 0) {
		disni_throw_errno(env, "ibv_query_qp", ret);
		return -ret;
	}
	return (jint)attr.qp_state;
}

JNIEXPORT jint JNICALL CLASS(_1getQpNum)(JNIEnv *env, jobject self, jlong qp_handle)
{
	struct ibv_qp *qp = DISNI_PTR(struct ibv_qp, qp_handle);

	(void)self;
	if (qp == NULL) {
		disni_throw_errno(env, "getQpNum (null queue pair)", EINVAL);
		return -1;
	}
	return (jint)qp->qp_num;
}

JNIEXPORT jlong JNICALL CLASS(_1regMr)(JNIEnv *env, jobject self, jlong pd_handle, jlong address, jint length,
		jint access, jlong lkey_out, jlong rkey_out, jlong handle_out)
{
	struct ibv_pd *pd = DISNI_PTR(struct ibv_pd, pd_handle);
	struct ibv_mr *mr;

	(void)self;
	if (pd == NULL || address == 0 || length <= 0 || lkey_out == 0 || rkey_out == 0 || handle_out == 0) {
		disni_throw_errno(env, "ibv_reg_mr (null pd, buffer or result, or empty range)", EINVAL);
		return -1;
	}
	mr = ibv_reg_mr(pd, DISNI_PTR(void, address), (size_t)length, access);
	if (mr == NULL) {
		disni_throw_errno(env, "ibv_reg_mr", errno);
		return -1;
	}
	*DISNI_PTR(uint32_t, lkey_out) = mr->lkey;
	*DISNI_PTR(uint32_t, rkey_out) = mr->rkey;
	*DISNI_PTR(uint32_t, handle_out) = mr->handle;
	return DISNI_HANDLE(mr);
}

JNIEXPORT void JNICALL CLASS(_1deregMr)(JNIEnv *env, jobject self, jlong mr_handle)
{
	struct ibv_mr *mr = DISNI_PTR(struct ibv_mr, mr_handle);
	int ret;

	(void)self;
	if (mr == NULL) {
		disni_throw_errno(env, "ibv_dereg_mr (null region)", EINVAL);
		return;
	}
	ret = ibv_dereg_mr(mr);
	if (ret != 0)
		disni_throw_errno(env, "ibv_dereg_mr", ret);
}

/* Returns the RC on-demand-paging capabilities (IBV_ODP_SUPPORT_*), or -EOPNOTSUPP without ODP. */
JNIEXPORT jint JNICALL CLASS(_1queryOdpSupport)(JNIEnv *env, jobject self, jlong context_handle)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);
	struct ibv_device_attr_ex attr;
	int ret;

	(void)env;
	(void)self;
	if (context == NULL)
		return -EINVAL;
	memset(&attr, 0, sizeof(attr));
	ret = ibv_query_device_ex(context, NULL, &attr);
	if (ret != 0)
		return -ret;
	if ((attr.odp_caps.general_caps & IBV_ODP_SUPPORT) == 0)
		return -EOPNOTSUPP;
	return (jint)attr.odp_caps.per_transport_caps.rc_odp_caps;
}

/* Prefetches an on-demand-paging range for writing (ibv_advise_mr, rdma-core's successor of the
 * experimental ibv_exp_prefetch_mr). Returns 0; failures throw. */
JNIEXPORT jint JNICALL CLASS(_1expPrefetchMr)(JNIEnv *env, jobject self, jlong mr_handle, jlong address, jint length)
{
	struct ibv_mr *mr = DISNI_PTR(struct ibv_mr, mr_handle);
	struct ibv_sge sge;
	int ret;

	(void)self;
	if (mr == NULL || length <= 0) {
		disni_throw_errno(env, "ibv_advise_mr (null region or empty range)", EINVAL);
		return -EINVAL;
	}
	sge.addr = (uint64_t)address;
	sge.length = (uint32_t)length;
	sge.lkey = mr->lkey;
	ret = ibv_advise_mr(mr->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	if (ret != 0) {
		disni_throw_errno(env, "ibv_advise_mr", ret);
		return -ret;
	}
	return 0;
}

JNIEXPORT jint JNICALL CLASS(_1getContextFd)(JNIEnv *env, jobject self, jlong context_handle)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);

	(void)self;
	if (context == NULL) {
		disni_throw_errno(env, "getContextFd (null context)", EINVAL);
		return -1;
	}
	return context->cmd_fd;
}

JNIEXPORT jint JNICALL CLASS(_1getContextNumCompVectors)(JNIEnv *env, jobject self, jlong context_handle)
{
	struct ibv_context *context = DISNI_PTR(struct ibv_context, context_handle);

	(void)self;
	if (context == NULL) {
		disni_throw_errno(env, "getContextNumCompVectors (null context)", EINVAL);
		return -1;
	}
	return context->num_comp_vectors;
}

/* The sizes and offsets of the records exchanged with DiSNI's Java side (see the top). */
JNIEXPORT jint JNICALL CLASS(_1getSockAddrInSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return DISNI_SOCKADDR_BUFFER;
}

JNIEXPORT jint JNICALL CLASS(_1getIbvRecvWRSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)sizeof(struct disni_recv_record);
}

JNIEXPORT jint JNICALL CLASS(_1getIbvSendWRSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)sizeof(struct disni_send_record);
}

JNIEXPORT jint JNICALL CLASS(_1getIbvSgeSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)sizeof(struct ibv_sge);
}

JNIEXPORT jint JNICALL CLASS(_1getIbvWCSize)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)sizeof(struct ibv_wc);
}

JNIEXPORT jint JNICALL CLASS(_1getRemoteAddressOffset)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)offsetof(struct disni_send_record, remote_addr);
}

JNIEXPORT jint JNICALL CLASS(_1getRKeyOffset)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return (jint)offsetof(struct disni_send_record, rkey);
}

JNIEXPORT jint JNICALL CLASS(_1getVersion)(JNIEnv *env, jobject self)
{
	(void)env;
	(void)self;
	return DISNI_JNI_VERSION;
}
