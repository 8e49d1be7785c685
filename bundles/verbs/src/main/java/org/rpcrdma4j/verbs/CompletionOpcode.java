package org.rpcrdma4j.verbs;

/**
 * What a {@link WorkCompletion} reports, as {@code enum ibv_wc_opcode} collapses it: SEND and
 * SEND_WITH_INV complete as {@link #SEND}, RDMA_READ_WITH_INV as {@link #RDMA_READ}.
 */
public enum CompletionOpcode {
    /** A SEND or SEND_WITH_INV. */
    SEND,
    /** An RDMA WRITE. */
    RDMA_WRITE,
    /** An RDMA READ or RDMA_READ_WITH_INV. */
    RDMA_READ,
    /** A LOCAL_INV. */
    LOCAL_INV,
    /** A REG_MR. */
    REG_MR,
    /** A receive. */
    RECV;

    /**
     * @param opcode a send-queue opcode
     * @return the opcode its completion reports
     */
    public static CompletionOpcode of(SendOpcode opcode) {
        switch (opcode) {
            case SEND:
            case SEND_WITH_INV:
                return SEND;
            case RDMA_WRITE:
                return RDMA_WRITE;
            case RDMA_READ:
            case RDMA_READ_WITH_INV:
                return RDMA_READ;
            case LOCAL_INV:
                return LOCAL_INV;
            case REG_MR:
                return REG_MR;
            default:
                throw new IllegalArgumentException("unknown opcode " + opcode);
        }
    }
}
