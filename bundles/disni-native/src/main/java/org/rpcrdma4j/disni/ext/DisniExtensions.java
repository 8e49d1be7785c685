package org.rpcrdma4j.disni.ext;

import com.ibm.disni.verbs.RdmaProvider;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Native calls of libdisni that DiSNI 2.1's own NativeDispatcher lacks: device listing and
 * limits, connect/accept/reject with private data and READ depths, the status and private
 * data of the connection event DiSNI last returned on a channel, completion channels shared by
 * many queues (wait sets), and the devices' asynchronous events.
 *
 * <p>This class ships in the libdisni fragment, so it is loaded by DiSNI's class loader (in OSGi,
 * the host bundle com.ibm.disni; outside OSGi, the same class path) and binds to the library
 * DiSNI loaded. Handles are DiSNI's object ids ({@code NatObject.getObjId()}): rdma_cm_id,
 * ibv_context and event-channel handles as libdisni hands them out. Failures throw
 * {@link IOException} whose message ends in {@code [errno N]}.
 *
 * <p>Threading: {@link #lastEventStatus} and {@link #lastEventPrivateData} read the record of the
 * last {@code getCmEvent} on the channel and MUST be called by the thread that polled it, before
 * it polls again.
 */
public final class DisniExtensions {
    /** Index into {@link #queryDevice}'s result: max SGEs per send/receive (max_sge). */
    public static final int DEVICE_MAX_SGE = 0;
    /** Index: max SGEs per RDMA READ (max_sge_rd). */
    public static final int DEVICE_MAX_SGE_RD = 1;
    /** Index: max work requests per queue (max_qp_wr). */
    public static final int DEVICE_MAX_QP_WR = 2;
    /** Index: max completion queue entries (max_cqe). */
    public static final int DEVICE_MAX_CQE = 3;
    /** Index: max outstanding READs as initiator (max_qp_init_rd_atom). */
    public static final int DEVICE_MAX_QP_INIT_RD_ATOM = 4;
    /** Index: max READs served as responder (max_qp_rd_atom). */
    public static final int DEVICE_MAX_QP_RD_ATOM = 5;
    /** Index: enum ibv_transport_type (0 InfiniBand/RoCE, 1 iWARP). */
    public static final int DEVICE_TRANSPORT_TYPE = 6;
    /** Index: port 1's link layer (1 InfiniBand, 2 Ethernet). */
    public static final int DEVICE_LINK_LAYER = 7;
    /** Index: device_cap_flags. */
    public static final int DEVICE_CAP_FLAGS = 8;
    /** Index: max_mr_size in MiB (capped to Integer.MAX_VALUE). */
    public static final int DEVICE_MAX_MR_SIZE_MIB = 9;
    /** Length of the array {@link #queryDevice} fills. */
    public static final int DEVICE_FIELDS = 10;

    /** Index into {@link #queryQueuePair}'s result: the state (enum ibv_qp_state). */
    public static final int QP_STATE = 0;
    /** Index: the send queue's real size (cap.max_send_wr, at least what creation asked for). */
    public static final int QP_MAX_SEND_WR = 1;
    /** Index: the receive queue's real size (cap.max_recv_wr). */
    public static final int QP_MAX_RECV_WR = 2;
    /** Length of the array {@link #queryQueuePair} fills. */
    public static final int QP_FIELDS = 3;

    /** enum ibv_qp_state IBV_QPS_RESET. */
    public static final int QPS_RESET = 0;
    /** IBV_QPS_INIT. */
    public static final int QPS_INIT = 1;
    /** IBV_QPS_RTR. */
    public static final int QPS_RTR = 2;
    /** IBV_QPS_RTS. */
    public static final int QPS_RTS = 3;
    /** IBV_QPS_SQD. */
    public static final int QPS_SQD = 4;
    /** IBV_QPS_SQE. */
    public static final int QPS_SQE = 5;
    /** IBV_QPS_ERR. */
    public static final int QPS_ERR = 6;

    /** enum ibv_transport_type IBV_TRANSPORT_IWARP. */
    public static final int TRANSPORT_IWARP = 1;
    /** IBV_LINK_LAYER_ETHERNET. */
    public static final int LINK_LAYER_ETHERNET = 2;
    /** Most private-data bytes librdmacm carries in any message. */
    public static final int MAX_PRIVATE_DATA = 255;

    /** Added to {@link #awaitWaitSet}'s result when the await consumed a wake-up. */
    public static final int WAIT_SET_WOKEN = 0x10000;
    /** Most completion events one {@link #awaitWaitSet} takes. */
    public static final int WAIT_SET_MAX_EVENTS = 256;
    /** Most completion channels (devices) one wait set sleeps on. */
    public static final int WAIT_SET_MAX_CHANNELS = 64;

    /** enum ibv_event_type IBV_EVENT_CQ_ERR (an asynchronous event, {@link #takeAsyncEvent}). */
    public static final int EVENT_CQ_ERR = 0;
    /** IBV_EVENT_QP_FATAL: the queue pair hit an error it cannot report in a completion. */
    public static final int EVENT_QP_FATAL = 1;
    /** IBV_EVENT_QP_REQ_ERR: the peer's request violated the transport (invalid request). */
    public static final int EVENT_QP_REQ_ERR = 2;
    /** IBV_EVENT_QP_ACCESS_ERR: the peer's request violated access (local access violation). */
    public static final int EVENT_QP_ACCESS_ERR = 3;
    /** IBV_EVENT_DEVICE_FATAL: the device failed; every queue pair on it is lost. */
    public static final int EVENT_DEVICE_FATAL = 8;

    static {
        try {
            RdmaProvider.provider(); // loads libdisni in this class loader and checks its version
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private DisniExtensions() {
    }

    /**
     * Lists the RDMA devices (ibv_get_device_list).
     *
     * @return the device names, empty when there is none
     * @throws IOException when the list cannot be read (e.g. no kernel support)
     */
    public static native String[] deviceNames() throws IOException;

    /**
     * @param context a DiSNI context handle
     * @return the device name of the context (ibv_get_device_name)
     * @throws IOException EINVAL for a null handle
     */
    public static native String deviceName(long context) throws IOException;

    /**
     * Queries a device's limits (ibv_query_device, ibv_query_port of port 1).
     *
     * @param context a DiSNI context handle
     * @param out at least {@link #DEVICE_FIELDS} ints, filled at the DEVICE_* indices
     * @throws IOException when the device refuses
     */
    public static native void queryDevice(long context, int[] out) throws IOException;

    /**
     * @param channel a DiSNI event-channel handle
     * @return the status of the last event DiSNI took from the channel (errno or CM reason)
     * @throws IOException EINVAL for a null handle
     */
    public static native int lastEventStatus(long channel) throws IOException;

    /**
     * @param channel a DiSNI event-channel handle
     * @return the READ depths the peer asked for in the last event DiSNI took from the channel (a
     *         connect request's or an accept's): {@code (initiator_depth << 8) | responder_resources}
     * @throws IOException EINVAL for a null handle
     */
    public static native int lastEventReadDepths(long channel) throws IOException;

    /**
     * Copies the private data of the last event DiSNI took from the channel.
     *
     * @param channel a DiSNI event-channel handle
     * @param buffer a direct buffer of at least {@link #MAX_PRIVATE_DATA} bytes, written from index 0
     * @return the number of bytes copied
     * @throws IOException EINVAL for a null handle or an unfit buffer
     */
    public static native int lastEventPrivateData(long channel, ByteBuffer buffer) throws IOException;

    /**
     * rdma_connect with private data and explicit READ depths.
     *
     * @param id a DiSNI id handle with a queue pair and a resolved route
     * @param data a direct buffer holding the private data at [0, length), or null when length is 0
     * @param length the private data length, 0..{@link #MAX_PRIVATE_DATA}
     * @param initiatorDepth READs in flight as initiator
     * @param responderResources READs served as responder
     * @param retryCount transport retries
     * @param rnrRetryCount RNR retries (7 = infinite)
     * @throws IOException when librdmacm refuses
     */
    public static native void connect(long id, ByteBuffer data, int length, int initiatorDepth, int responderResources, int retryCount,
            int rnrRetryCount) throws IOException;

    /**
     * rdma_accept with private data and explicit READ depths.
     *
     * @param id a DiSNI id handle of a connect request, with a queue pair
     * @param data a direct buffer holding the private data at [0, length), or null when length is 0
     * @param length the private data length
     * @param initiatorDepth READs in flight as initiator
     * @param responderResources READs served as responder
     * @param rnrRetryCount RNR retries (7 = infinite)
     * @throws IOException when librdmacm refuses
     */
    public static native void accept(long id, ByteBuffer data, int length, int initiatorDepth, int responderResources, int rnrRetryCount)
            throws IOException;

    /**
     * rdma_reject with private data.
     *
     * @param id a DiSNI id handle of a connect request
     * @param data a direct buffer holding the private data at [0, length), or null when length is 0
     * @param length the private data length
     * @throws IOException when librdmacm refuses
     */
    public static native void reject(long id, ByteBuffer data, int length) throws IOException;

    /**
     * Queries a queue pair (ibv_query_qp): its current state and the queue sizes the device gave
     * it, which may exceed what creation asked for (devices round up; rxe to 2^n - 1).
     *
     * <p>Assumptions: the queue pair MUST NOT be destroyed during the call (the caller serialises
     * this with its destroy).
     *
     * @param qp a DiSNI queue pair handle ({@code NatObject.getObjId()} of its IbvQP)
     * @param out at least {@link #QP_FIELDS} ints, filled at the QP_* indices
     * @throws IOException EINVAL for a null handle or a short array; the device's errno otherwise
     */
    public static native void queryQueuePair(long qp, int[] out) throws IOException;

    /** Bytes of one send record (DiSNI 2.1's NatIbvSendWR.CSIZE), the layout {@link #postSend} reads. */
    public static final int SEND_RECORD_BYTES = 72;
    /** Bytes of one receive record (NatIbvRecvWR.CSIZE), the layout {@link #postReceive} reads. */
    public static final int RECEIVE_RECORD_BYTES = 32;
    /** Bytes of one scatter/gather element (struct ibv_sge): address u64, length u32, lkey u32. */
    public static final int SGE_BYTES = 16;
    /** Longest chain one post takes (libdisni's guard against a cyclic "next" list). */
    public static final int MAX_POSTED_CHAIN = 4096;

    /**
     * Posts a chain of send records with one ibv_post_send: one doorbell for the chain. The
     * records are DiSNI 2.1's (native order): wr_id u64 at 0, next u64 at 8 (the absolute address
     * of the next record, 0 ends the chain), sg_list u64 at 16 (absolute address of the SGE
     * array), num_sge i32 at 24, opcode i32 at 28 (enum ibv_wr_opcode), send_flags u32 at 32,
     * imm_data / invalidate_rkey u32 at 36, remote_addr u64 at 40, rkey u32 at 48.
     *
     * <p>Assumptions: the queue pair MUST NOT be destroyed during the call, and the records and
     * their SGE arrays MUST stay valid and unchanged until it returns.
     *
     * @param qp a DiSNI queue pair handle ({@code NatObject.getObjId()} of its IbvQP)
     * @param firstRecord the address of the first record
     * @throws IOException ending in {@code [errno N] [wr I]}: I is the index of the request that
     *         failed, every request before it was posted; EINVAL for a null handle or address, a
     *         chain longer than {@link #MAX_POSTED_CHAIN} or an opcode the record cannot carry
     *         (then nothing was posted)
     */
    public static native void postSend(long qp, long firstRecord) throws IOException;

    /**
     * Posts a chain of receive records with one ibv_post_recv; records as DiSNI 2.1's: wr_id u64
     * at 0, next u64 at 8, sg_list u64 at 16, num_sge i32 at 24. Assumptions and failures as
     * {@link #postSend}.
     */
    public static native void postReceive(long qp, long firstRecord) throws IOException;

    /**
     * Opens a wait set: the native half of a completion channel shared by many completion queues,
     * an eventfd (the wake-up) and, once added, one ibv_comp_channel per device, waited on together
     * in one poll(2).
     *
     * <p>Ownership: the caller owns the set and MUST free it with {@link #closeWaitSet} once no
     * thread can use it any more (no await, no wake in progress).
     *
     * @return the set's handle
     * @throws IOException when the eventfd cannot be created
     */
    public static native long openWaitSet() throws IOException;

    /**
     * Adds a completion channel to a wait set. Safe while another thread awaits the set (the
     * channel is watched from that thread's next await on); adds MUST be serialised.
     *
     * @param waitSet the set
     * @param compChannel a DiSNI completion-channel handle (ibv_comp_channel, its fd non-blocking, as
     *        libdisni creates it); the caller keeps owning it and destroys it after {@link #closeWaitSet}
     * @throws IOException EEXIST when added already; ENOSPC beyond {@link #WAIT_SET_MAX_CHANNELS}
     */
    public static native void addToWaitSet(long waitSet, long compChannel) throws IOException;

    /**
     * Sleeps until a channel of the set has a completion event or the set is woken, then takes the
     * ready events (ibv_get_cq_event, each acknowledged at once) and writes their queues' cookies
     * ({@link #setCompletionQueueCookie}) to {@code cookies}. Allocates nothing.
     *
     * <p>Assumptions: one thread at a time; the set is open.
     *
     * @param waitSet the set
     * @param timeoutMillis the longest sleep, 0 for none
     * @param cookies receives the cookies from index 0
     * @param max the most events to take, 1..min(cookies.length, {@link #WAIT_SET_MAX_EVENTS})
     * @return the number of events taken, plus {@link #WAIT_SET_WOKEN} when a wake-up was consumed
     *         (0 on timeout); or a negative errno (EIO when a channel failed, e.g. its device
     *         went away), never with an event taken
     */
    public static native int awaitWaitSet(long waitSet, int timeoutMillis, int[] cookies, int max);

    /**
     * Rings a wait set's wake-up (write(2) to its eventfd): the current or next await returns.
     * Any thread; never blocks.
     *
     * @param waitSet the set
     * @return 0 or a negative errno
     */
    public static native int wakeWaitSet(long waitSet);

    /**
     * Closes a wait set's eventfd and frees it; its completion channels are untouched.
     *
     * @param waitSet the set; MUST NOT be used by any thread any more
     */
    public static native void closeWaitSet(long waitSet);

    /**
     * Sets a completion queue's cq_context, handed back by {@link #awaitWaitSet} as the cookie of
     * each of its events. Assumptions: the queue is not armed yet.
     *
     * @param cq a DiSNI completion-queue handle
     * @param cookie the value
     * @throws IOException EINVAL for a null handle
     */
    public static native void setCompletionQueueCookie(long cq, int cookie) throws IOException;

    /**
     * Makes a device's asynchronous event descriptor non-blocking, for {@link #takeAsyncEvent}.
     *
     * @param context a DiSNI context handle
     * @throws IOException when fcntl refuses
     */
    public static native void prepareAsyncEvents(long context) throws IOException;

    /**
     * Takes one asynchronous event of a device without waiting (ibv_get_async_event) and
     * acknowledges it.
     *
     * @param context a DiSNI context handle, prepared with {@link #prepareAsyncEvents}
     * @return {@code (event_type << 32) | element}: the element is the queue pair number for a queue
     *         pair event, the port for a port event, else 0; or a negative errno, EAGAIN when none
     *         is pending
     */
    public static native long takeAsyncEvent(long context);

    /** Most descriptors one {@link #awaitDescriptors} watches. */
    public static final int MAX_AWAITED_DESCRIPTORS = 30;

    /**
     * Opens a wake-up for {@link #awaitDescriptors}: an eventfd (non-blocking, close-on-exec).
     * Ownership: the caller MUST close it with {@link #closeWakeup} once no thread rings or awaits it.
     *
     * @return the descriptor
     * @throws IOException when eventfd(2) fails
     */
    public static native int openWakeup() throws IOException;

    /**
     * Rings a wake-up: the current or next {@link #awaitDescriptors} that watches it returns.
     * Any thread; never blocks.
     *
     * @param wakeup a descriptor from {@link #openWakeup}, still open
     * @return 0 or a negative errno
     */
    public static native int ringWakeup(int wakeup);

    /** @param wakeup a descriptor from {@link #openWakeup}; no thread may use it any more */
    public static native void closeWakeup(int wakeup);

    /**
     * @param channel a DiSNI event channel handle ({@code NatObject.getObjId()} of its RdmaEventChannel)
     * @return the channel's descriptor (rdma_event_channel.fd), or -EINVAL for a null handle
     */
    public static native int eventChannelDescriptor(long channel);

    /**
     * @param context a DiSNI context handle
     * @return the device's asynchronous event descriptor (ibv_context.async_fd), or -EINVAL
     */
    public static native int asyncEventDescriptor(long context);

    /**
     * Sleeps until one of the descriptors is readable (poll(2)), or the timeout passes. The first
     * is a wake-up ({@link #openWakeup}), consumed when it was rung. Allocates nothing.
     *
     * @param descriptors the descriptors, the wake-up first
     * @param count how many, 1..{@link #MAX_AWAITED_DESCRIPTORS}
     * @param timeoutMillis the longest sleep, 0 for none
     * @return a bit mask of the readable ones (bit i for {@code descriptors[i]}; an error condition
     *         counts as readable, so that reading it reports the error), 0 on timeout or EINTR; or a
     *         negative errno: EBADF when one of them is not open, EINVAL for a bad count
     */
    public static native int awaitDescriptors(int[] descriptors, int count, int timeoutMillis);
}
