package org.rpcrdma4j.verbs;

/**
 * The errno values a verbs call reports at the API boundary, as Linux numbers them.
 *
 * <p>Providers over libibverbs/librdmacm pass the native errno through unchanged; the loopback
 * provider uses the value the native stack would have returned for the same misuse. One place for
 * the numbers, with {@link #toString(int)} for messages and logs.
 */
public final class Errno {
    /** Operation not permitted. */
    public static final int EPERM = 1;
    /** No such device or address (e.g. nothing to resolve). */
    public static final int ENXIO = 6;
    /** Out of memory, or a work queue is full (ibv_post_send/ibv_post_recv). */
    public static final int ENOMEM = 12;
    /** Permission denied (e.g. REMOTE_WRITE without LOCAL_WRITE on some devices). */
    public static final int EACCES = 13;
    /** Resource busy: a protection domain or completion queue is still in use. */
    public static final int EBUSY = 16;
    /** Invalid argument: bad opcode, too many SGEs, wrong queue pair state, ... */
    public static final int EINVAL = 22;
    /** Address already in use (listen). */
    public static final int EADDRINUSE = 98;
    /** Operation not supported by this device or provider. */
    public static final int EOPNOTSUPP = 95;
    /** Value too large: a completion queue overflowed. */
    public static final int EOVERFLOW = 75;
    /** Transport endpoint is not connected. */
    public static final int ENOTCONN = 107;
    /** Timed out (address or route resolution). */
    public static final int ETIMEDOUT = 110;
    /** Connection refused: nobody listens at the address. */
    public static final int ECONNREFUSED = 111;
    /** Host unreachable. */
    public static final int EHOSTUNREACH = 113;
    /** The object was already closed, destroyed or deregistered. */
    public static final int EBADF = 9;

    private Errno() {
    }

    /**
     * Names an errno value.
     *
     * @param errno a Linux errno value
     * @return its symbolic name, or {@code "errno <n>"} when unknown
     */
    public static String toString(int errno) {
        switch (errno) {
            case EPERM: return "EPERM";
            case ENXIO: return "ENXIO";
            case EBADF: return "EBADF";
            case ENOMEM: return "ENOMEM";
            case EACCES: return "EACCES";
            case EBUSY: return "EBUSY";
            case EINVAL: return "EINVAL";
            case EOVERFLOW: return "EOVERFLOW";
            case EOPNOTSUPP: return "EOPNOTSUPP";
            case EADDRINUSE: return "EADDRINUSE";
            case ENOTCONN: return "ENOTCONN";
            case ETIMEDOUT: return "ETIMEDOUT";
            case ECONNREFUSED: return "ECONNREFUSED";
            case EHOSTUNREACH: return "EHOSTUNREACH";
            default: return "errno " + errno;
        }
    }
}
