package org.rpcrdma4j.verbs;

/**
 * Access flags of a memory registration, with the values of {@code enum ibv_access_flags} so a
 * native provider passes them through unchanged.
 *
 * <p>Local read access is always granted. {@link #REMOTE_WRITE} requires {@link #LOCAL_WRITE}
 * (ibv_reg_mr fails with EINVAL otherwise); providers MUST enforce that rule.
 */
public final class Access {
    /** The local HCA may write (receive buffers, RDMA READ sinks). */
    public static final int LOCAL_WRITE = 1;
    /** The peer may RDMA WRITE into the region (and, on iWARP, READ responses land there). */
    public static final int REMOTE_WRITE = 2;
    /** The peer may RDMA READ from the region. */
    public static final int REMOTE_READ = 4;

    /** All flags this contract knows. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ;

    private Access() {
    }

    /**
     * Checks a set of access flags.
     *
     * @param access the flags
     * @return true when only known flags are set and REMOTE_WRITE comes with LOCAL_WRITE
     */
    public static boolean isValid(int access) {
        return (access & ~ALL) == 0 && ((access & REMOTE_WRITE) == 0 || (access & LOCAL_WRITE) != 0);
    }

    /**
     * Names a set of access flags.
     *
     * @param access the flags
     * @return e.g. {@code "LOCAL_WRITE|REMOTE_READ"}, or {@code "LOCAL_READ"} when none is set
     */
    public static String toString(int access) {
        if (access == 0) {
            return "LOCAL_READ";
        }
        StringBuilder s = new StringBuilder();
        append(s, access, LOCAL_WRITE, "LOCAL_WRITE");
        append(s, access, REMOTE_WRITE, "REMOTE_WRITE");
        append(s, access, REMOTE_READ, "REMOTE_READ");
        int unknown = access & ~ALL;
        if (unknown != 0) {
            append(s, unknown, unknown, "0x" + Integer.toHexString(unknown));
        }
        return s.toString();
    }

    private static void append(StringBuilder s, int access, int flag, String name) {
        if ((access & flag) != 0) {
            if (s.length() > 0) {
                s.append('|');
            }
            s.append(name);
        }
    }
}
