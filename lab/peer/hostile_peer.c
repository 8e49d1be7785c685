// SPDX-License-Identifier: Apache-2.0
/*
 * hostile_peer - a malformed-peer client for an RPC-over-RDMA version 1 server (RFC 8166), over
 * librdmacm and libibverbs.
 *
 *   hostile-peer <server-ipv4> <port>
 *
 * Runs one case after another against the server: bad versions and procedures, truncated
 * headers, chunk lists that overrun the message, zero-segment and huge-count chunks, read
 * positions beyond, unaligned or overlapping, bogus rkeys in read and write chunks, oversized
 * sends, credit floods, connect churn, bad private data and half-open peers. After each case a
 * fresh, well-behaved client must get a NULL call (program 100003 version 3 procedure 0,
 * AUTH_NONE) answered within the timeout. Prints TAP ("ok N - case" / "not ok N - case", with
 * "# " diagnostics) and exits 1 when any case failed, 2 on a usage or set-up error.
 *
 * What each case accepts is written from RFC 8166 loosely enough for any correct server and
 * strictly enough that a hang, a crash or silence fails:
 *   ERR_VERS    RDMA_ERROR / ERR_VERS echoing the xid (section 4.5: a responder MUST answer an
 *               unsupported version so);
 *   ERR_CHUNK   RDMA_ERROR / ERR_CHUNK echoing the xid (a header it cannot parse, 4.5);
 *   CLOSE       the server closes the connection (a DISCONNECTED event, or our work requests
 *               fail: what a broken queue pair looks like from this side);
 *   DROP        no answer to the message, but a valid NULL call sent next on the same
 *               connection is answered (the message was dropped and the connection goes on);
 *   REPLY       an RPC reply to the call (the server found the message acceptable).
 * A case fails when the outcome is not among those it accepts: in particular when the server is
 * silent and the connection no longer serves ("silence"), or when no fresh client is served.
 *
 * Environment: HOSTILE_PEER_TIMEOUT_MS (default 10000) bounds every wait for an answer or a CM
 * event (the soft-RDMA lab runs on an emulated CPU); HOSTILE_PEER_CHURN (default 100) connect
 * cycles in the churn case; HOSTILE_PEER_ONLY=substring runs only the cases whose name contains it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* RFC 8166 */
#define RPCRDMA_VERSION 1
#define RDMA_MSG 0
#define RDMA_NOMSG 1
#define RDMA_MSGP 2
#define RDMA_DONE 3
#define RDMA_ERROR 4
#define ERR_VERS 1
#define ERR_CHUNK 2
/* RFC 8797 */
#define CM_PRIVATE_MAGIC 0xf6ab0e18u
/* ONC RPC (RFC 5531) and the NULL call of NFSv3 */
#define NFS_PROGRAM 100003
#define NFS_VERSION 3

/* What a case accepts. */
#define A_ERR_VERS 0x01
#define A_ERR_CHUNK 0x02
#define A_CLOSE 0x04
#define A_DROP 0x08
#define A_REPLY 0x10

/* Outcomes besides the accepted ones. */
#define O_SILENCE 0x100
#define O_OTHER_ERROR 0x200
#define O_SETUP 0x400

#define SLOT 8192
#define SEND_SLOTS 16
#define RECV_SLOTS 32
#define SOURCE_BYTES (1 << 20)
#define BIG_SEND (1 << 20)
#define RECV_ID_BASE 1000
#define BIG_SEND_ID 999

static int timeout_ms = 10000;
static int churn_cycles = 100;
static const char *only;
static struct sockaddr_in server;

/* ---- time ---- */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
}

/* ---- a message, built word by word (XDR is big-endian) ---- */

struct msg {
	uint8_t b[SLOT];
	size_t len;
};

static void put32(struct msg *m, uint32_t v)
{
	uint32_t be = htobe32(v);

	if (m->len + 4 <= sizeof(m->b)) {
		memcpy(m->b + m->len, &be, 4);
		m->len += 4;
	}
}

static void put64(struct msg *m, uint64_t v)
{
	put32(m, (uint32_t)(v >> 32));
	put32(m, (uint32_t)v);
}

static void put_segment(struct msg *m, uint32_t handle, uint32_t length, uint64_t offset)
{
	put32(m, handle);
	put32(m, length);
	put64(m, offset);
}

static uint32_t get32(const uint8_t *b, size_t at)
{
	uint32_t be;

	memcpy(&be, b + at, 4);
	return be32toh(be);
}

static void fixed_header(struct msg *m, uint32_t xid, uint32_t vers, uint32_t credits, uint32_t proc)
{
	m->len = 0;
	put32(m, xid);
	put32(m, vers);
	put32(m, credits);
	put32(m, proc);
}

/* The RPC call message of NFSv3 NULL with AUTH_NONE: 40 bytes. */
static void rpc_null_call(struct msg *m, uint32_t xid)
{
	put32(m, xid);
	put32(m, 0);		/* CALL */
	put32(m, 2);		/* rpcvers */
	put32(m, NFS_PROGRAM);
	put32(m, NFS_VERSION);
	put32(m, 0);		/* NULL */
	put32(m, 0);		/* cred AUTH_NONE */
	put32(m, 0);
	put32(m, 0);		/* verf AUTH_NONE */
	put32(m, 0);
}

#define RPC_NULL_CALL_BYTES 40

/* A valid RDMA_MSG carrying a NULL call, no chunks. */
static void null_call(struct msg *m, uint32_t xid)
{
	fixed_header(m, xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(m, 0);		/* no read list */
	put32(m, 0);		/* no write list */
	put32(m, 0);		/* no reply chunk */
	rpc_null_call(m, xid);
}

/* ---- a client ---- */

struct peer {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;	/* sends and receives */
	struct ibv_mr *src_mr;	/* chunk data the server may READ */
	struct ibv_mr *big_mr;	/* oversized sends */
	uint8_t *buf;
	uint8_t *src;
	uint8_t *big;
	int qp_created;
	int established;
	int rejected;
	int closed;		/* DISCONNECTED, or a work request failed */
	int free_slots[SEND_SLOTS];
	int nfree;
	uint32_t next_xid;
	/* the last reply received */
	uint8_t reply[SLOT];
	size_t reply_len;
	int have_reply;
};

struct connect_options {
	const void *private_data;	/* NULL: RFC 8797 private data, 4 KiB each way */
	int private_data_len;
	int post_receives;		/* 0: a half-open peer that never posts a receive */
	int rnr_retry;			/* 7: retry forever */
};

static const struct connect_options DEFAULT_OPTIONS = { NULL, 0, 1, 7 };

static int wait_cm_event(struct peer *p, int timeout, enum rdma_cm_event_type *type, int *status)
{
	struct pollfd pfd = { .fd = p->ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, timeout) <= 0)
		return -1;
	if (rdma_get_cm_event(p->ec, &ev))
		return -1;
	*type = ev->event;
	*status = ev->status;
	rdma_ack_cm_event(ev);
	return 0;
}

static void drain_cm_events(struct peer *p)
{
	enum rdma_cm_event_type type;
	int status;

	while (wait_cm_event(p, 0, &type, &status) == 0) {
		if (type == RDMA_CM_EVENT_DISCONNECTED || type == RDMA_CM_EVENT_DEVICE_REMOVAL)
			p->closed = 1;
	}
}

static int post_receive(struct peer *p, int index)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(p->buf + (SEND_SLOTS + index) * SLOT),
		.length = SLOT,
		.lkey = p->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = RECV_ID_BASE + index, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(p->id->qp, &wr, &bad);
}

static void peer_destroy(struct peer *p, int orderly)
{
	if (p->id && orderly && p->established && !p->closed) {
		rdma_disconnect(p->id);
		/* give the DISCONNECTED event a moment; do not wait long for a broken peer */
		enum rdma_cm_event_type type;
		int status;
		long long deadline = now_ms() + 1000;

		while (now_ms() < deadline && wait_cm_event(p, 100, &type, &status) == 0)
			if (type == RDMA_CM_EVENT_DISCONNECTED)
				break;
	}
	if (p->qp_created)
		rdma_destroy_qp(p->id);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->src_mr)
		ibv_dereg_mr(p->src_mr);
	if (p->big_mr)
		ibv_dereg_mr(p->big_mr);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->id)
		rdma_destroy_id(p->id);
	if (p->ec)
		rdma_destroy_event_channel(p->ec);
	free(p->buf);
	free(p->src);
	free(p->big);
	free(p);
}

/*
 * peer_connect() - resolve, create the queue pair, post receives (unless half-open) and
 * connect. Returns the peer, established or rejected (see ->established, ->rejected), or NULL
 * when the set-up failed on our side or the server did not answer in time (*why says which).
 */
static struct peer *peer_connect(const struct connect_options *o, const char **why)
{
	struct peer *p = calloc(1, sizeof(*p));
	enum rdma_cm_event_type type;
	int status;
	uint8_t pd_default[8];

	*why = NULL;
	if (!p)
		return *why = "out of memory", NULL;
	p->next_xid = (uint32_t)random();
	p->ec = rdma_create_event_channel();
	if (!p->ec) {
		*why = "rdma_create_event_channel failed";
		goto fail;
	}
	fcntl(p->ec->fd, F_SETFL, fcntl(p->ec->fd, F_GETFL) | O_NONBLOCK);
	if (rdma_create_id(p->ec, &p->id, p, RDMA_PS_TCP)) {
		*why = "rdma_create_id failed";
		goto fail;
	}
	if (rdma_resolve_addr(p->id, NULL, (struct sockaddr *)&server, timeout_ms) ||
	    wait_cm_event(p, timeout_ms, &type, &status) || type != RDMA_CM_EVENT_ADDR_RESOLVED) {
		*why = "address not resolved";
		goto fail;
	}
	if (rdma_resolve_route(p->id, timeout_ms) ||
	    wait_cm_event(p, timeout_ms, &type, &status) || type != RDMA_CM_EVENT_ROUTE_RESOLVED) {
		*why = "route not resolved";
		goto fail;
	}
	p->pd = ibv_alloc_pd(p->id->verbs);
	p->cq = p->pd ? ibv_create_cq(p->id->verbs, 256, NULL, NULL, 0) : NULL;
	p->buf = calloc(SEND_SLOTS + RECV_SLOTS, SLOT);
	p->src = calloc(1, SOURCE_BYTES);
	if (!p->cq || !p->buf || !p->src) {
		*why = "protection domain, completion queue or memory not allocated";
		goto fail;
	}
	p->mr = ibv_reg_mr(p->pd, p->buf, (size_t)(SEND_SLOTS + RECV_SLOTS) * SLOT, IBV_ACCESS_LOCAL_WRITE);
	p->src_mr = ibv_reg_mr(p->pd, p->src, SOURCE_BYTES, IBV_ACCESS_REMOTE_READ);
	if (!p->mr || !p->src_mr) {
		*why = "ibv_reg_mr failed (ulimit -l?)";
		goto fail;
	}
	struct ibv_qp_init_attr qpa = {
		.send_cq = p->cq, .recv_cq = p->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SEND_SLOTS + 1, .max_recv_wr = RECV_SLOTS, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	if (rdma_create_qp(p->id, p->pd, &qpa)) {
		*why = "rdma_create_qp failed";
		goto fail;
	}
	p->qp_created = 1;
	for (int i = 0; i < SEND_SLOTS; i++)
		p->free_slots[p->nfree++] = i;
	for (int i = 0; o->post_receives && i < RECV_SLOTS; i++) {
		if (post_receive(p, i)) {
			*why = "ibv_post_recv failed";
			goto fail;
		}
	}
	if (!o->private_data) {
		uint32_t magic = htobe32(CM_PRIVATE_MAGIC);

		memcpy(pd_default, &magic, 4);
		pd_default[4] = 1;		/* version */
		pd_default[5] = 0;		/* flags: no remote invalidation */
		pd_default[6] = 3;		/* send size: (3 + 1) KiB */
		pd_default[7] = 3;		/* receive size: (3 + 1) KiB */
	}
	struct rdma_conn_param cp = {
		.private_data = o->private_data ? o->private_data : pd_default,
		.private_data_len = (uint8_t)(o->private_data ? o->private_data_len : (int)sizeof(pd_default)),
		.responder_resources = 4, .initiator_depth = 4,
		.retry_count = 7, .rnr_retry_count = (uint8_t)o->rnr_retry,
	};
	if (rdma_connect(p->id, &cp)) {
		*why = "rdma_connect failed";
		goto fail;
	}
	if (wait_cm_event(p, timeout_ms, &type, &status)) {
		*why = "no answer to the connect request";
		goto fail;
	}
	if (type == RDMA_CM_EVENT_ESTABLISHED) {
		p->established = 1;
	} else if (type == RDMA_CM_EVENT_REJECTED) {
		p->rejected = 1;
	} else {
		*why = rdma_event_str(type);
		goto fail;
	}
	return p;
fail:
	peer_destroy(p, 0);
	return NULL;
}

/* Completions and CM events; the reply (if any) lands in p->reply. */
static void peer_poll(struct peer *p)
{
	struct ibv_wc wc[16];
	int n;

	drain_cm_events(p);
	while ((n = ibv_poll_cq(p->cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				p->closed = 1;
				if (wc[i].wr_id < SEND_SLOTS)
					p->free_slots[p->nfree++] = (int)wc[i].wr_id;
				continue;
			}
			if (wc[i].wr_id < SEND_SLOTS) {
				p->free_slots[p->nfree++] = (int)wc[i].wr_id;
			} else if (wc[i].wr_id >= RECV_ID_BASE) {
				int index = (int)(wc[i].wr_id - RECV_ID_BASE);

				p->reply_len = wc[i].byte_len < SLOT ? wc[i].byte_len : SLOT;
				memcpy(p->reply, p->buf + (SEND_SLOTS + index) * SLOT, p->reply_len);
				p->have_reply = 1;
				if (post_receive(p, index))
					p->closed = 1;
			}
		}
	}
	if (n < 0)
		p->closed = 1;
}

/* SEND len bytes; returns 0, or -1 when no send slot frees up in time or the post fails. */
static int peer_send(struct peer *p, const void *data, size_t len)
{
	long long deadline = now_ms() + timeout_ms;

	while (p->nfree == 0 && !p->closed && now_ms() < deadline) {
		peer_poll(p);
		if (p->nfree == 0)
			usleep(1000);
	}
	if (p->nfree == 0 || p->closed)
		return -1;
	int slot = p->free_slots[--p->nfree];
	uint8_t *at = p->buf + slot * SLOT;

	memcpy(at, data, len > SLOT ? SLOT : len);
	struct ibv_sge sge = { .addr = (uintptr_t)at, .length = (uint32_t)(len > SLOT ? SLOT : len), .lkey = p->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)slot, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (len == 0)
		wr.num_sge = 0;
	if (ibv_post_send(p->id->qp, &wr, &bad)) {
		p->free_slots[p->nfree++] = slot;
		return -1;
	}
	return 0;
}

static int send_msg(struct peer *p, const struct msg *m)
{
	return peer_send(p, m->b, m->len);
}

/*
 * wait_answer() - wait up to `timeout` ms for a reply whose first word is `xid` (any reply when
 * match_xid is 0), or for the connection to close.
 * Returns A_ERR_VERS, A_ERR_CHUNK, O_OTHER_ERROR, A_REPLY, A_CLOSE or O_SILENCE.
 */
static int wait_answer(struct peer *p, uint32_t xid, int match_xid, int timeout)
{
	long long deadline = now_ms() + timeout;

	for (;;) {
		p->have_reply = 0;
		peer_poll(p);
		if (p->have_reply && p->reply_len >= 16 && (!match_xid || get32(p->reply, 0) == xid)) {
			if (get32(p->reply, 12) != RDMA_ERROR)
				return A_REPLY;
			if (p->reply_len >= 20 && get32(p->reply, 16) == ERR_VERS)
				return A_ERR_VERS;
			if (p->reply_len >= 20 && get32(p->reply, 16) == ERR_CHUNK)
				return A_ERR_CHUNK;
			return O_OTHER_ERROR;
		}
		if (p->closed)
			return A_CLOSE;
		if (now_ms() >= deadline)
			return O_SILENCE;
		usleep(1000);
	}
}

/* A NULL call on p, answered with an accepted RPC reply echoing its xid? */
static int null_answered(struct peer *p)
{
	struct msg m;
	uint32_t xid = ++p->next_xid;

	null_call(&m, xid);
	if (send_msg(p, &m))
		return 0;
	long long deadline = now_ms() + timeout_ms;

	while (now_ms() < deadline) {
		int r = wait_answer(p, xid, 1, (int)(deadline - now_ms()));

		if (r != A_REPLY)
			return 0;
		/* RDMA_MSG: 7 header words, then the RPC reply: xid, REPLY, MSG_ACCEPTED, verf, SUCCESS */
		if (get32(p->reply, 12) == RDMA_MSG && p->reply_len >= 28 + 24 && get32(p->reply, 28) == xid &&
		    get32(p->reply, 32) == 1 && get32(p->reply, 36) == 0 && get32(p->reply, 48) == 0)
			return 1;
		if (get32(p->reply, 12) == RDMA_MSG)
			return 0;	/* answered, but not with an accepted NULL reply */
	}
	return 0;
}

static const char *outcome_name(int o)
{
	switch (o) {
	case A_ERR_VERS: return "ERR_VERS";
	case A_ERR_CHUNK: return "ERR_CHUNK";
	case A_CLOSE: return "connection closed";
	case A_DROP: return "dropped, connection still serving";
	case A_REPLY: return "RPC reply";
	case O_SILENCE: return "silence (no answer, the connection no longer serves)";
	case O_OTHER_ERROR: return "RDMA_ERROR with another code";
	default: return "set-up failure";
	}
}

/*
 * classify() - after a message with `xid` was sent on p: what did the server do? Silence for a
 * fifth of the timeout is followed by a NULL call on the same connection (DROP if answered).
 */
static int classify(struct peer *p, uint32_t xid, int has_xid)
{
	int r = wait_answer(p, xid, has_xid, timeout_ms / 5);

	if (r == O_SILENCE)
		r = null_answered(p) ? A_DROP : p->closed ? A_CLOSE : O_SILENCE;
	return r;
}

/* ---- the fresh-client check ---- */

static int fresh_client_served(void)
{
	const char *why;
	struct peer *p = peer_connect(&DEFAULT_OPTIONS, &why);
	int ok;

	if (!p) {
		diag("a fresh client could not connect: %s", why);
		return 0;
	}
	if (!p->established) {
		diag("a fresh client was rejected");
		peer_destroy(p, 0);
		return 0;
	}
	ok = null_answered(p);
	if (!ok) {
		diag("a fresh client's NULL call was not answered within %d ms", timeout_ms);
		fflush(stdout);
		/* While the unanswered client is still connected: what the server and the device do now. */
		const char *hook = getenv("HOSTILE_PEER_ON_UNSERVED");
		if (hook && *hook && system(hook) != 0)
			diag("HOSTILE_PEER_ON_UNSERVED failed");
	}
	peer_destroy(p, 1);
	return ok;
}

/* ---- TAP ---- */

static int test_number;
static int failures;

static void report(const char *name, int ok, int outcome)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++test_number, name);
	if (outcome)
		diag("server: %s", outcome_name(outcome));
	fflush(stdout);
	if (!ok)
		failures++;
}

static int selected(const char *name)
{
	return !only || strstr(name, only);
}

/*
 * message_case() - connect, send m (its xid is its first word when has_xid), classify, then
 * check a fresh client. Passes when the outcome is in `accept` and a fresh client is served.
 */
static void message_case(const char *name, const struct msg *m, int has_xid, int accept)
{
	const char *why;
	struct peer *p;
	int outcome;

	if (!selected(name))
		return;
	p = peer_connect(&DEFAULT_OPTIONS, &why);
	if (!p || !p->established) {
		diag("set-up: %s", p ? "rejected" : why);
		if (p)
			peer_destroy(p, 0);
		report(name, 0, O_SETUP);
		return;
	}
	if (send_msg(p, m)) {
		outcome = p->closed ? A_CLOSE : O_SETUP;
	} else {
		outcome = classify(p, has_xid ? get32(m->b, 0) : 0, has_xid && m->len >= 4);
	}
	peer_destroy(p, 1);
	int served = fresh_client_served();

	report(name, (outcome & accept) && served, outcome);
}

/* ---- the cases ---- */

static uint32_t case_xid = 0x48500000;

static void bad_version_cases(void)
{
	struct msg m;

	fixed_header(&m, ++case_xid, 2, 32, RDMA_MSG);
	put32(&m, 0); put32(&m, 0); put32(&m, 0);
	rpc_null_call(&m, case_xid);
	message_case("bad version 2 is answered ERR_VERS", &m, 1, A_ERR_VERS);

	fixed_header(&m, ++case_xid, 0xffffffffu, 32, RDMA_MSG);
	put32(&m, 0); put32(&m, 0); put32(&m, 0);
	rpc_null_call(&m, case_xid);
	message_case("bad version 0xffffffff is answered ERR_VERS", &m, 1, A_ERR_VERS);
}

static void bad_proc_cases(void)
{
	struct msg m;

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, 7);
	put32(&m, 0); put32(&m, 0); put32(&m, 0);
	rpc_null_call(&m, case_xid);
	message_case("unknown procedure 7", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP);

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_MSGP);
	put32(&m, 0); put32(&m, 0); put32(&m, 0);
	put32(&m, 4); put32(&m, 4);
	rpc_null_call(&m, case_xid);
	message_case("RDMA_MSGP (obsolete)", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP);

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_DONE);
	message_case("RDMA_DONE from a client", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP);

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_ERROR);
	put32(&m, ERR_CHUNK);
	message_case("RDMA_ERROR from a client is never answered with an error", &m, 1, A_CLOSE | A_DROP);
}

static void truncated_cases(void)
{
	static const size_t lengths[] = { 0, 3, 4, 8, 12, 16, 20, 24 };
	char name[96];

	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		struct msg m;

		null_call(&m, ++case_xid);
		m.len = lengths[i];
		snprintf(name, sizeof(name), "truncated header (%zu bytes)", lengths[i]);
		message_case(name, &m, lengths[i] >= 4, A_ERR_CHUNK | A_CLOSE | A_DROP);
	}
}

static void overrun_cases(void)
{
	struct msg m;

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(&m, 1); put32(&m, 0); put32(&m, 0x1234);	/* read segment cut after its handle */
	message_case("read list overruns the message", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP);

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(&m, 0); put32(&m, 1); put32(&m, 4);		/* write chunk of 4 segments, 1 present */
	put_segment(&m, 0x1234, 4096, 0x10000);
	message_case("write chunk overruns the message", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP);

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(&m, 0); put32(&m, 0); put32(&m, 1); put32(&m, 1000);	/* reply chunk of 1000 segments */
	put_segment(&m, 0x1234, 4096, 0x10000);
	message_case("reply chunk overruns the message", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP);
}

static void count_cases(void)
{
	struct msg m;

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(&m, 0); put32(&m, 1); put32(&m, 0); put32(&m, 0); put32(&m, 0);
	rpc_null_call(&m, case_xid);
	message_case("zero-segment write chunk", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP | A_REPLY);

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(&m, 0); put32(&m, 0); put32(&m, 1); put32(&m, 0);
	rpc_null_call(&m, case_xid);
	message_case("zero-segment reply chunk", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP | A_REPLY);

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(&m, 0); put32(&m, 1); put32(&m, 0x40000001); put_segment(&m, 1, 8, 0);
	put32(&m, 0); put32(&m, 0);
	rpc_null_call(&m, case_xid);
	message_case("write chunk with 0x40000001 segments (count overflow)", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP);

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(&m, 0); put32(&m, 0); put32(&m, 1); put32(&m, 0xffffffffu); put_segment(&m, 1, 8, 0);
	rpc_null_call(&m, case_xid);
	message_case("reply chunk with 0xffffffff segments", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP);

	fixed_header(&m, ++case_xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	for (int i = 0; i < 150; i++) {
		put32(&m, 1); put32(&m, RPC_NULL_CALL_BYTES);
		put_segment(&m, 0x1234, 4, 0x10000 + 4 * (uint64_t)i);
	}
	put32(&m, 0); put32(&m, 0); put32(&m, 0);
	rpc_null_call(&m, case_xid);
	message_case("read list of 150 segments in one chunk", &m, 1, A_ERR_CHUNK | A_CLOSE | A_DROP);
}

/* A NULL call with one read chunk of `length` bytes at `position`, readable at the peer's source region. */
static void read_chunk_call(struct msg *m, struct peer *p, uint32_t xid, uint32_t position, uint32_t length,
			    uint32_t rkey)
{
	fixed_header(m, xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(m, 1); put32(m, position);
	put_segment(m, rkey, length, (uint64_t)(uintptr_t)p->src);
	put32(m, 0); put32(m, 0); put32(m, 0);
	rpc_null_call(m, xid);
}

/* Cases that need the live peer's keys: the message is built after connecting. */
typedef void (*build_fn)(struct msg *m, struct peer *p, uint32_t xid);

static void peer_message_case(const char *name, build_fn build, int accept)
{
	const char *why;
	struct peer *p;
	struct msg m;
	int outcome;

	if (!selected(name))
		return;
	p = peer_connect(&DEFAULT_OPTIONS, &why);
	if (!p || !p->established) {
		diag("set-up: %s", p ? "rejected" : why);
		if (p)
			peer_destroy(p, 0);
		report(name, 0, O_SETUP);
		return;
	}
	build(&m, p, ++case_xid);
	outcome = send_msg(p, &m) ? (p->closed ? A_CLOSE : O_SETUP) : classify(p, case_xid, 1);
	peer_destroy(p, 1);
	int served = fresh_client_served();

	report(name, (outcome & accept) && served, outcome);
}

static void build_position_beyond(struct msg *m, struct peer *p, uint32_t xid)
{
	read_chunk_call(m, p, xid, 4096, 64, p->src_mr->rkey);
}

static void build_position_unaligned(struct msg *m, struct peer *p, uint32_t xid)
{
	read_chunk_call(m, p, xid, 6, 64, p->src_mr->rkey);
}

static void build_positions_overlapping(struct msg *m, struct peer *p, uint32_t xid)
{
	fixed_header(m, xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(m, 1); put32(m, 8); put_segment(m, p->src_mr->rkey, 64, (uint64_t)(uintptr_t)p->src);
	put32(m, 1); put32(m, 4); put_segment(m, p->src_mr->rkey, 64, (uint64_t)(uintptr_t)p->src + 64);
	put32(m, 0); put32(m, 0); put32(m, 0);
	rpc_null_call(m, xid);
}

static void build_bogus_read_rkey(struct msg *m, struct peer *p, uint32_t xid)
{
	read_chunk_call(m, p, xid, RPC_NULL_CALL_BYTES, 4096, p->src_mr->rkey ^ 0x5a5a00u);
}

static void build_bogus_write_rkeys(struct msg *m, struct peer *p, uint32_t xid)
{
	(void)p;
	fixed_header(m, xid, RPCRDMA_VERSION, 32, RDMA_MSG);
	put32(m, 0);
	put32(m, 1); put32(m, 1); put_segment(m, 0xdeadbeefu, 65536, 0x7f0000000000ull);
	put32(m, 0);
	put32(m, 1); put32(m, 1); put_segment(m, 0xbadc0ffeu, 65536, 0x7f0000100000ull);
	rpc_null_call(m, xid);
}

static void position_and_rkey_cases(void)
{
	peer_message_case("read position beyond the inline body", build_position_beyond, A_ERR_CHUNK | A_CLOSE | A_DROP);
	peer_message_case("unaligned read position", build_position_unaligned, A_ERR_CHUNK | A_CLOSE | A_DROP);
	peer_message_case("overlapping read chunks", build_positions_overlapping,
			  A_ERR_CHUNK | A_CLOSE | A_DROP | A_REPLY);
	/* The server's READ fails and breaks its queue pair: it must close, not go silent. */
	peer_message_case("bogus rkey in a read chunk", build_bogus_read_rkey, A_ERR_CHUNK | A_CLOSE);
	peer_message_case("bogus rkeys in the write list and reply chunk", build_bogus_write_rkeys,
			  A_ERR_CHUNK | A_CLOSE | A_REPLY | A_DROP);
}

static void oversized_send_case(void)
{
	const char *name = "oversized send (1 MiB into a 4 KiB receive)";
	const char *why;
	struct peer *p;
	int outcome = O_SETUP;

	if (!selected(name))
		return;
	p = peer_connect(&DEFAULT_OPTIONS, &why);
	if (p && p->established) {
		p->big = calloc(1, BIG_SEND);
		p->big_mr = p->big ? ibv_reg_mr(p->pd, p->big, BIG_SEND, 0) : NULL;
		if (p->big_mr) {
			struct msg m;

			null_call(&m, ++case_xid);
			memcpy(p->big, m.b, m.len);
			struct ibv_sge sge = { .addr = (uintptr_t)p->big, .length = BIG_SEND, .lkey = p->big_mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = BIG_SEND_ID, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			}, *bad;

			outcome = ibv_post_send(p->id->qp, &wr, &bad) ? O_SETUP : classify(p, case_xid, 1);
		}
	} else {
		diag("set-up: %s", p ? "rejected" : why);
	}
	if (p)
		peer_destroy(p, 1);
	int served = fresh_client_served();

	/* No server takes 1 MiB inline: the receive fails, and with it the connection. */
	report(name, outcome == A_CLOSE && served, outcome);
}

static void credit_flood_case(void)
{
	const char *name = "credit flood (256 calls without waiting for credits)";
	const char *why;
	struct peer *p;
	int sent = 0, answered = 0;

	if (!selected(name))
		return;
	p = peer_connect(&DEFAULT_OPTIONS, &why);
	if (!p || !p->established) {
		diag("set-up: %s", p ? "rejected" : why);
		if (p)
			peer_destroy(p, 0);
		report(name, 0, O_SETUP);
		return;
	}
	long long deadline = now_ms() + 3 * timeout_ms;

	while (sent < 256 && !p->closed && now_ms() < deadline) {
		struct msg m;

		null_call(&m, ++p->next_xid);
		if (p->nfree == 0) {
			p->have_reply = 0;
			peer_poll(p);
			answered += p->have_reply;
			usleep(500);
			continue;
		}
		if (send_msg(p, &m))
			break;
		sent++;
	}
	while (!p->closed && now_ms() < deadline && wait_answer(p, 0, 0, 200) == A_REPLY)
		answered++;
	diag("%d calls sent, %d answers seen, connection %s", sent, answered, p->closed ? "closed" : "open");
	/* A client ignoring credits may hurt itself (stalled or closed), never the others. */
	int served = fresh_client_served();

	peer_destroy(p, 1);
	report(name, served, 0);
}

static void churn_case(void)
{
	const char *name = "connect churn (orderly and abrupt)";
	const char *why;
	int failed_setups = 0;

	if (!selected(name))
		return;
	for (int i = 0; i < churn_cycles; i++) {
		struct peer *p = peer_connect(&DEFAULT_OPTIONS, &why);

		if (!p) {
			failed_setups++;
			continue;
		}
		if (i % 3 == 1 && p->established)
			send_msg(p, &(struct msg){ .len = 0 });
		peer_destroy(p, i % 2 == 0);	/* odd cycles: destroy without a disconnect */
	}
	if (failed_setups)
		diag("%d of %d connects failed", failed_setups, churn_cycles);
	report(name, fresh_client_served(), 0);
}

static void private_data_case(const char *name, const void *data, int len)
{
	struct connect_options o = DEFAULT_OPTIONS;
	const char *why;
	struct peer *p;
	int ok = 1;

	if (!selected(name))
		return;
	o.private_data = data;
	o.private_data_len = len;
	p = peer_connect(&o, &why);
	if (!p) {
		diag("no answer to the connect: %s", why);
		ok = 0;
	} else if (p->established) {
		/* accepted (e.g. with the default inline sizes): then it must serve */
		ok = null_answered(p);
		diag("accepted; NULL %s", ok ? "answered" : "not answered");
	} else {
		diag("rejected");
	}
	if (p)
		peer_destroy(p, 1);
	report(name, ok && fresh_client_served(), 0);
}

static void private_data_cases(void)
{
	static const uint8_t bad_magic[8] = { 0xde, 0xad, 0xbe, 0xef, 1, 0, 3, 3 };
	static const uint8_t version_2[8] = { 0xf6, 0xab, 0x0e, 0x18, 2, 0, 3, 3 };
	static const uint8_t max_sizes[8] = { 0xf6, 0xab, 0x0e, 0x18, 1, 0xff, 0xff, 0xff };
	static const uint8_t truncated[3] = { 0xf6, 0xab, 0x0e };
	uint8_t garbage[56];

	memset(garbage, 0xff, sizeof(garbage));
	private_data_case("private data with a bad magic", bad_magic, sizeof(bad_magic));
	private_data_case("private data of version 2", version_2, sizeof(version_2));
	private_data_case("private data with every flag and the largest sizes", max_sizes, sizeof(max_sizes));
	private_data_case("private data truncated to 3 bytes", truncated, sizeof(truncated));
	private_data_case("56 bytes of 0xff as private data", garbage, sizeof(garbage));
}

static void half_open_case(void)
{
	const char *name = "half-open peer (never posts a receive, asks for infinite RNR retry)";
	struct connect_options o = DEFAULT_OPTIONS;
	const char *why;
	struct peer *p;

	if (!selected(name))
		return;
	o.post_receives = 0;
	o.rnr_retry = 7;
	p = peer_connect(&o, &why);
	if (!p || !p->established) {
		diag("set-up: %s", p ? "rejected" : why);
		if (p)
			peer_destroy(p, 0);
		report(name, 0, O_SETUP);
		return;
	}
	for (int i = 0; i < 8; i++) {
		struct msg m;

		null_call(&m, ++p->next_xid);
		if (send_msg(p, &m))
			break;
	}
	usleep(200 * 1000);
	peer_poll(p);
	/* while it stays connected, holding replies the server cannot deliver */
	int served = fresh_client_served();

	peer_destroy(p, 0);
	report(name, served && fresh_client_served(), 0);
}

/* A child connects, does `what`, and _exit()s without any clean-up: a crashed client. */
static void vanish_case(const char *name, int with_read)
{
	pid_t pid;
	int status = 0;

	if (!selected(name))
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		const char *why;
		struct peer *p = peer_connect(&DEFAULT_OPTIONS, &why);
		struct msg m;

		if (!p || !p->established)
			_exit(3);
		if (with_read)
			read_chunk_call(&m, p, ++case_xid, RPC_NULL_CALL_BYTES, SOURCE_BYTES / 2, p->src_mr->rkey);
		else
			null_call(&m, ++case_xid);
		send_msg(p, &m);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		diag("the vanishing child could not connect (status %d)", status);
		report(name, 0, O_SETUP);
		return;
	}
	report(name, fresh_client_served(), 0);
}

static void preflight(void)
{
	if (!fresh_client_served()) {
		printf("Bail out! a well-behaved client is not served by %s:%d\n", inet_ntoa(server.sin_addr),
		       ntohs(server.sin_port));
		exit(2);
	}
}

int main(int argc, char **argv)
{
	const char *env;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <server-ipv4> <port>\n", argv[0]);
		return 2;
	}
	memset(&server, 0, sizeof(server));
	server.sin_family = AF_INET;
	server.sin_port = htons((uint16_t)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &server.sin_addr) != 1 || atoi(argv[2]) <= 0 || atoi(argv[2]) > 65535) {
		fprintf(stderr, "%s: not an IPv4 address and port: %s %s\n", argv[0], argv[1], argv[2]);
		return 2;
	}
	env = getenv("HOSTILE_PEER_TIMEOUT_MS");
	if (env && atoi(env) > 0)
		timeout_ms = atoi(env);
	env = getenv("HOSTILE_PEER_CHURN");
	if (env && atoi(env) >= 0)
		churn_cycles = atoi(env);
	only = getenv("HOSTILE_PEER_ONLY");
	signal(SIGPIPE, SIG_IGN);
	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("TAP version 13\n");
	diag("hostile-peer against %s:%s, timeout %d ms", argv[1], argv[2], timeout_ms);
	preflight();
	bad_version_cases();
	bad_proc_cases();
	truncated_cases();
	overrun_cases();
	count_cases();
	position_and_rkey_cases();
	oversized_send_case();
	credit_flood_case();
	churn_case();
	private_data_cases();
	half_open_case();
	vanish_case("vanishing peer (exits without a disconnect after a call)", 0);
	vanish_case("vanishing peer (exits while the server READs its chunk)", 1);
	printf("1..%d\n", test_number);
	diag("%d of %d failed", failures, test_number);
	return failures ? 1 : 0;
}
