package org.rpcrdma4j.transport.internal.common;

/**
 * WorkRequestIds - what a work request id says: the kind of request and a slot index (every
 * request of a READ chain carries its READ slot's id).
 *
 * <pre>
 *  63      56 55                               32 31                            0
 * +----------+-----------------------------------+-------------------------------+
 * |   kind   |             reserved              |             index             |
 * +----------+-----------------------------------+-------------------------------+
 * </pre>
 */
public final class WorkRequestIds {
    /** A receive; index is the receive context. */
    public static final int RECEIVE = 1;
    /** A SEND; index is the send context. */
    public static final int SEND = 2;
    /** A request of a READ chain; index is the READ slot. */
    public static final int READ = 3;
    /** An RDMA WRITE of a reply; index is the reply's send context. */
    public static final int WRITE = 4;

    private static final int KIND_SHIFT = 56;

    private WorkRequestIds() {
    }

    public static long of(int kind, int index) {
        return ((long) kind << KIND_SHIFT) | (index & 0xffff_ffffL);
    }

    public static int kind(long id) {
        return (int) (id >>> KIND_SHIFT);
    }

    public static int index(long id) {
        return (int) id;
    }
}
