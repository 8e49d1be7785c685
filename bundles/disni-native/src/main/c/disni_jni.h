/*
 * libdisni for rpcrdma4j: the native half of DiSNI 2.1 (com.ibm.disni:disni:2.1), written against
 * Debian's libibverbs and librdmacm so that DiSNI's own jar runs unmodified.
 *
 * Conventions shared by every JNI entry point (see README.md of this module):
 *  - Object handles ("objIds") are the native pointers (struct rdma_cm_id *, struct ibv_pd *, ...)
 *    cast to jlong; DiSNI's Java side treats a negative handle as "none".
 *  - Methods that DiSNI declares "throws IOException" report a failure by throwing
 *    java.io.IOException whose message ends in "[errno N]" (N the Linux errno), and for a failed
 *    post also "[wr I]" (I the index of the first work request not posted).
 *  - Methods that return int without "throws" return 0 (or a count / value) on success and the
 *    negative errno on failure.
 */
#ifndef DISNI_JNI_H
#define DISNI_JNI_H

#include <jni.h>
#include <stdint.h>
#include <rdma/rdma_cma.h>

/* The version DiSNI 2.1's NativeDispatcher requires (its JVERBS_VERSION). */
#define DISNI_JNI_VERSION 32

/* Most SGEs per send and receive work request of a queue pair (DiSNI 2.1 passes no count). */
#define DISNI_QP_MAX_SGE 16u

/* Bytes of DiSNI's socket address records (SockAddrIn.CSIZE: room for a struct sockaddr_in6). */
#define DISNI_SOCKADDR_BUFFER 28

/* Converts a handle passed from Java back into a pointer. */
#define DISNI_PTR(type, handle) ((type *)(uintptr_t)(handle))
/* Converts a pointer into the handle handed to Java. */
#define DISNI_HANDLE(ptr) ((jlong)(uintptr_t)(ptr))

/*
 * An event channel as handed to Java: librdmacm's channel plus what DiSNI 2.1's _getCmEvent
 * cannot return (the last event's status and private data), for DisniExtensions. Polled by one
 * thread at a time (DiSNI's and rpcrdma4j's contract), so the record needs no lock.
 */
struct disni_channel {
	struct rdma_event_channel *channel;
	int last_status;
	uint8_t last_initiator_depth;
	uint8_t last_responder_resources;
	uint8_t last_private_data_len;
	uint8_t last_private_data[255];
};

/*
 * Post a chain of DiSNI send (receive) records, linked by absolute "next" addresses, with one
 * ibv_post_send (ibv_post_recv); on failure an IOException whose "[wr I]" is the index of the
 * request that failed. Shared by NativeDispatcher and DisniExtensions (disni_verbs.c).
 */
void disni_post_send(JNIEnv *env, jlong qp_handle, jlong list);
void disni_post_recv(JNIEnv *env, jlong qp_handle, jlong list);

/* Throws java.io.IOException "<what> failed: <strerror(err)> [errno err]". */
void disni_throw_errno(JNIEnv *env, const char *what, int err);

/* Throws java.io.IOException for a failed post: as above plus " [wr index]". */
void disni_throw_post(JNIEnv *env, const char *what, int err, int index);

/* Throws the named unchecked exception class with "<what> failed: <strerror(err)> [errno err]". */
void disni_throw_unchecked(JNIEnv *env, const char *class_name, const char *what, int err);

/*
 * Waits until fd is readable, at most timeout_ms milliseconds (negative: no limit).
 * Returns 0 when readable, ETIMEDOUT on timeout, or the errno of poll().
 */
int disni_wait_readable(int fd, int timeout_ms);

/* Sets O_NONBLOCK on fd. Returns 0 or the errno of fcntl(). */
int disni_set_nonblocking(int fd);

#endif
