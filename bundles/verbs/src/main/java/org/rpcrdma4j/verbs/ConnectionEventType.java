package org.rpcrdma4j.verbs;

/** The connection-manager events (enum rdma_cm_event_type, those this contract exposes). */
public enum ConnectionEventType {
    /**
     * Passive side: a peer asks to connect. The event carries a new {@link Connection}, the
     * peer's private data and address; the handler owns the connection from then on and MUST
     * accept or reject it (and close it after a reject).
     */
    CONNECT_REQUEST,
    /** Both sides: the connection is up; on the active side it carries the accept private data. */
    ESTABLISHED,
    /** Active side: the peer rejected the request (private data of the reject, if any), or nobody listens. */
    REJECTED,
    /** Active side: the peer cannot be reached. */
    UNREACHABLE,
    /** Either side: setting up the connection failed. */
    CONNECT_ERROR,
    /** Either side: the connection is down (disconnect by either side, or the link was lost); its queue pair is in error. */
    DISCONNECTED,
    /** Either side: the device went away; every resource on it MUST be released. */
    DEVICE_REMOVAL,
    /**
     * Either side: the device reported that the connection's queue pair failed, as an
     * asynchronous event outside any completion (ibv_get_async_event: IBV_EVENT_QP_FATAL,
     * QP_REQ_ERR, QP_ACCESS_ERR, or DEVICE_FATAL for every queue pair of the device);
     * {@link ConnectionEvent#status()} is that ibv_event_type. Delivered at most once per
     * connection, by the manager that owns it. The queue pair is in error and no DISCONNECTED
     * need follow: the consumer MUST close the connection (svcrdma's qp_event_handler closes the
     * transport the same way). Providers without asynchronous events never deliver it.
     */
    QUEUE_PAIR_FATAL
}
