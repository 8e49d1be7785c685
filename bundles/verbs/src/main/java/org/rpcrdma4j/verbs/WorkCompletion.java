package org.rpcrdma4j.verbs;

/**
 * One work completion (ibv_wc), filled in place by {@link CompletionQueue#poll}.
 *
 * <p>Callers allocate an array of these once and reuse it for every poll; the provider
 * overwrites the fields (steady state allocates nothing). Only {@link #id()}, {@link #status()}
 * and {@link #queuePairNumber()} are meaningful when the status is not
 * {@link CompletionStatus#SUCCESS} (verbs leave the rest undefined; do not rely on it).
 *
 * <p>The setters are for providers. Not thread-safe; owned by the polling thread.
 */
public final class WorkCompletion {
    private long id;
    private CompletionStatus status = CompletionStatus.SUCCESS;
    private CompletionOpcode opcode = CompletionOpcode.SEND;
    private int byteCount;
    private int queuePairNumber;
    private boolean invalidated;
    private int invalidatedKey;
    private int vendorError;

    /**
     * Fills the completion (for providers).
     *
     * @param id the work request's id
     * @param status the status
     * @param opcode the opcode
     * @param byteCount bytes received (receives) or transferred (READ)
     * @param queuePairNumber the number of the queue pair the request was posted on
     * @return this completion
     */
    public WorkCompletion set(long id, CompletionStatus status, CompletionOpcode opcode, int byteCount, int queuePairNumber) {
        this.id = id;
        this.status = status;
        this.opcode = opcode;
        this.byteCount = byteCount;
        this.queuePairNumber = queuePairNumber;
        this.invalidated = false;
        this.invalidatedKey = 0;
        this.vendorError = 0;
        return this;
    }

    /**
     * Marks a receive completion whose SEND_WITH_INV invalidated a local key (for providers).
     *
     * @param key the invalidated key (IBV_WC_WITH_INV, {@code invalidated_rkey})
     * @return this completion
     */
    public WorkCompletion invalidated(int key) {
        this.invalidated = true;
        this.invalidatedKey = key;
        return this;
    }

    /**
     * Sets the provider's vendor error code (for providers).
     *
     * @param vendorError the code
     * @return this completion
     */
    public WorkCompletion vendorError(int vendorError) {
        this.vendorError = vendorError;
        return this;
    }

    /** @return the id of the completed work request */
    public long id() {
        return id;
    }

    /** @return the status */
    public CompletionStatus status() {
        return status;
    }

    /** @return true when the status is {@link CompletionStatus#SUCCESS} */
    public boolean isSuccess() {
        return status == CompletionStatus.SUCCESS;
    }

    /** @return the opcode (meaningful on success only) */
    public CompletionOpcode opcode() {
        return opcode;
    }

    /** @return bytes received for a receive, bytes read for an RDMA READ */
    public int byteCount() {
        return byteCount;
    }

    /** @return the number of the queue pair the request was posted on */
    public int queuePairNumber() {
        return queuePairNumber;
    }

    /** @return whether a received SEND_WITH_INV invalidated {@link #invalidatedKey()} */
    public boolean hasInvalidatedKey() {
        return invalidated;
    }

    /** @return the key the peer invalidated, when {@link #hasInvalidatedKey()} */
    public int invalidatedKey() {
        return invalidatedKey;
    }

    /** @return the provider's vendor error code, 0 when none */
    public int vendorError() {
        return vendorError;
    }

    @Override
    public String toString() {
        return "WorkCompletion[id=" + id + " " + status + " " + opcode + " bytes=" + byteCount + " qp=" + queuePairNumber
                + (invalidated ? " inv=0x" + Integer.toHexString(invalidatedKey) : "") + "]";
    }
}
