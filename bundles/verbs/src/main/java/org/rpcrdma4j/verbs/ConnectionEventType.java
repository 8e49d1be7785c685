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
    DEVICE_REMOVAL
}
