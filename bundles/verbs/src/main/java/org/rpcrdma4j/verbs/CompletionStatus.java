package org.rpcrdma4j.verbs;

/**
 * The status of a {@link WorkCompletion}, with the values of {@code enum ibv_wc_status}.
 *
 * <p>Any status but {@link #SUCCESS} moves the queue pair to the error state; every work request
 * still outstanding on it then completes with {@link #WORK_REQUEST_FLUSHED}.
 */
public enum CompletionStatus {
    /** The work request completed. */
    SUCCESS(0),
    /** A receive buffer was too small for the incoming SEND, or an SGE list was too long. */
    LOCAL_LENGTH_ERROR(1),
    /** An internal consistency error of the local queue pair (e.g. a bad REG_MR). */
    LOCAL_QP_OPERATION_ERROR(2),
    /** A local key was invalid, of another protection domain, or lacked the access needed. */
    LOCAL_PROTECTION_ERROR(4),
    /** The queue pair was in the error state: the request was not executed. */
    WORK_REQUEST_FLUSHED(5),
    /** A response of the peer was of an unexpected kind. */
    BAD_RESPONSE(7),
    /** A local access error while placing data. */
    LOCAL_ACCESS_ERROR(8),
    /** The peer found the request invalid (e.g. its receive buffer was too small). */
    REMOTE_INVALID_REQUEST_ERROR(9),
    /** The peer's key was invalid, lacked access, or the range was out of its region. */
    REMOTE_ACCESS_ERROR(10),
    /** The peer could not complete the operation. */
    REMOTE_OPERATION_ERROR(11),
    /** The transport retry count was exceeded: the peer did not answer (link lost). */
    TRANSPORT_RETRY_EXCEEDED(12),
    /** The peer had no receive posted, and the RNR retry count was exceeded. */
    RNR_RETRY_EXCEEDED(13),
    /** Any other error. */
    GENERAL_ERROR(21);

    private static final CompletionStatus[] BY_CODE = new CompletionStatus[22];

    static {
        for (CompletionStatus s : values()) {
            BY_CODE[s.code] = s;
        }
    }

    private final int code;

    CompletionStatus(int code) {
        this.code = code;
    }

    /** @return the {@code ibv_wc_status} value */
    public int code() {
        return code;
    }

    /**
     * Maps an {@code ibv_wc_status} value.
     *
     * @param code the native value
     * @return the status, or {@link #GENERAL_ERROR} for a value this contract does not name
     */
    public static CompletionStatus fromCode(int code) {
        CompletionStatus s = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        return s != null ? s : GENERAL_ERROR;
    }
}
