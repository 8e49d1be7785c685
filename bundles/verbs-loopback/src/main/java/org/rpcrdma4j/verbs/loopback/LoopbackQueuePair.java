package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.CompletionOpcode;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.QueuePairState;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A loopback RC queue pair: rings of preallocated send and receive slots, executed in order by the
 * fabric ({@link SendExecutor}).
 *
 * <p>Slot accounting as on hardware: a slot is in use from post until the completion retiring it
 * is polled; an unsignaled send is retired by the next completion of its queue. Entering the
 * error state completes every unexecuted send and posted receive as flushed, and requests posted
 * afterwards are flushed at once.
 *
 * <p>Threading: all state under the fabric lock.
 */
final class LoopbackQueuePair implements QueuePair {
    final LoopbackFabric fabric;
    final LoopbackProtectionDomain protectionDomain;
    final LoopbackCompletionQueue sendCompletionQueue;
    final LoopbackCompletionQueue receiveCompletionQueue;
    private final QueuePairAttributes attributes;
    private int rnrRetryCount;
    private final int number;
    private final SendSlot[] sendRing;
    private final ReceiveSlot[] receiveRing;
    private QueuePairState state = QueuePairState.INIT;
    LoopbackQueuePair peer;
    private boolean destroyed;
    /** A fault: flushes add no completion (see {@link LoopbackFaults#loseFlushes}). */
    private boolean flushesLost;
    private int sendHead;
    private int sendPending;
    private int sendOutstanding;
    private int executedUnretired;
    private int receiveHead;
    private int receivePosted;
    private int receiveOutstanding;
    private int readsInFlight;
    private int maxReadsInFlight;

    /** Under the fabric lock; the caller has checked the attributes against the device. */
    LoopbackQueuePair(LoopbackFabric fabric, int number, LoopbackProtectionDomain protectionDomain, QueuePairAttributes attributes) {
        this.fabric = fabric;
        this.number = number;
        this.protectionDomain = protectionDomain;
        this.attributes = attributes;
        this.rnrRetryCount = attributes.rnrRetryCount();
        this.sendCompletionQueue = (LoopbackCompletionQueue) attributes.sendCompletionQueue();
        this.receiveCompletionQueue = (LoopbackCompletionQueue) attributes.receiveCompletionQueue();
        sendRing = new SendSlot[attributes.sendQueueDepth()];
        for (int i = 0; i < sendRing.length; i++) {
            sendRing[i] = new SendSlot(attributes.maxSendSge(), attributes.maxInlineData());
        }
        receiveRing = new ReceiveSlot[attributes.receiveQueueDepth()];
        for (int i = 0; i < receiveRing.length; i++) {
            receiveRing[i] = new ReceiveSlot(attributes.maxReceiveSge());
        }
    }

    @Override
    public int number() {
        return number;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    @Override
    public QueuePairAttributes attributes() {
        return attributes;
    }

    /** The loopback gives each queue exactly the depth asked for. */
    @Override
    public int sendQueueCapacity() {
        return sendRing.length;
    }

    @Override
    public int receiveQueueCapacity() {
        return receiveRing.length;
    }

    @Override
    public QueuePairState state() {
        fabric.lock.lock();
        try {
            return state;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void postSend(SendWorkRequest first) throws VerbsException {
        fabric.lock.lock();
        try {
            int index = 0;
            try {
                for (SendWorkRequest request = first; request != null; request = request.next(), index++) {
                    checkPostable(request, index);
                    fabric.faults.checkPost(index);
                    SendSlot slot = sendRing[wrap(sendHead + sendPending, sendRing.length)];
                    slot.copyFrom(request);
                    if (slot.isInline()) {
                        copyInline(slot, index);
                    }
                    sendPending++;
                    countPostedRead(slot);
                    sendOutstanding++;
                }
            } finally {
                onPosted(index > 0);
            }
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void postReceive(ReceiveWorkRequest first) throws VerbsException {
        fabric.lock.lock();
        try {
            int index = 0;
            try {
                for (ReceiveWorkRequest request = first; request != null; request = request.next(), index++) {
                    checkOpen(index);
                    if (receiveOutstanding == receiveRing.length) {
                        throw new VerbsException("receive queue full (depth " + receiveRing.length + ")", Errno.ENOMEM, index);
                    }
                    if (request.sgeCount() > attributes.maxReceiveSge()) {
                        throw new VerbsException(request.sgeCount() + " SGEs exceed max " + attributes.maxReceiveSge(), Errno.EINVAL, index);
                    }
                    receiveRing[wrap(receiveHead + receivePosted, receiveRing.length)].copyFrom(request);
                    receivePosted++;
                    receiveOutstanding++;
                }
            } finally {
                onPosted(index > 0);
                if (index > 0) {
                    wakeSendsParkedOnRnr();
                }
            }
        } finally {
            fabric.lock.unlock();
        }
    }

    /**
     * After receives were posted: the peer's SENDs that met receiver-not-ready here go on, in
     * their queue's order. Under an infinite RNR retry count a parked SEND asks for no timed
     * retry, so without this it would wait for whatever else next woke the fabric (issue #31).
     * Executed on the poster's thread as a doorbell's work is ({@link LoopbackFabric#executeOnPost}),
     * else by the fabric thread, woken for it.
     */
    private void wakeSendsParkedOnRnr() {
        LoopbackQueuePair sender = peer;
        if (sender == null || !sender.hasPendingSend()) {
            return;
        }
        if (!fabric.executeOnPost(sender)) {
            fabric.workPosted();
        }
    }

    /**
     * After a post, also a partly failed one: the requests that made it in are flushed at once in
     * the error state, and the fabric is woken for them.
     */
    private void onPosted(boolean anyPosted) {
        if (!anyPosted) {
            return;
        }
        if (state == QueuePairState.ERROR && !destroyed) {
            flushSends();
            flushReceives();
        }
        if (fabric.executeOnPost(this)) {
            return;
        }
        fabric.workPosted();
    }

    private void checkPostable(SendWorkRequest request, int index) throws VerbsException {
        checkOpen(index);
        if (state == QueuePairState.INIT) {
            throw new VerbsException("queue pair is not connected", Errno.EINVAL, index);
        }
        if (sendOutstanding == sendRing.length) {
            throw new VerbsException("send queue full (depth " + sendRing.length + ")", Errno.ENOMEM, index);
        }
        DeviceCapabilities capabilities = fabric.capabilities();
        SendOpcode opcode = request.opcode();
        int maxSge = opcode == SendOpcode.RDMA_READ || opcode == SendOpcode.RDMA_READ_WITH_INV
                ? Math.min(attributes.maxSendSge(), capabilities.maxReadSge()) : attributes.maxSendSge();
        if (request.sgeCount() > maxSge) {
            throw new VerbsException(request.sgeCount() + " SGEs exceed max " + maxSge + " for " + opcode, Errno.EINVAL, index);
        }
        if (opcode == SendOpcode.REG_MR && !(capabilities.fastRegistration() && request.registrationRegion() instanceof LoopbackFastRegistrationRegion)) {
            throw new VerbsException("REG_MR needs fast registration and a region of this provider", Errno.EINVAL, index);
        }
        if (opcode == SendOpcode.SEND_WITH_INV && !capabilities.remoteInvalidation()) {
            throw new VerbsException("SEND_WITH_INV is not supported", Errno.EINVAL, index);
        }
        if ((request.flags() & SendWorkRequest.INLINE) != 0
                && opcode != SendOpcode.SEND && opcode != SendOpcode.SEND_WITH_INV && opcode != SendOpcode.RDMA_WRITE) {
            throw new VerbsException("INLINE is only for SEND and RDMA_WRITE", Errno.EINVAL, index);
        }
    }

    /** Copies an inline payload at post time, as the HCA does; the SGEs may be reused right after. */
    private void copyInline(SendSlot slot, int index) throws VerbsException {
        int total = slot.payloadLength();
        if (total > attributes.maxInlineData()) {
            throw new VerbsException(total + " inline bytes exceed max " + attributes.maxInlineData(), Errno.EINVAL, index);
        }
        int at = 0;
        for (int i = 0; i < slot.sgeCount; i++) {
            RegisteredMemory memory = fabric.keys.lookup(slot.sgeKey[i]);
            if (memory == null || !memory.contains(slot.sgeAddress[i], slot.sgeLength[i])) {
                throw new VerbsException("inline SGE " + i + " names no registered memory", Errno.EINVAL, index);
            }
            memory.buffer.get(memory.bufferIndexOf(slot.sgeAddress[i]), slot.inlineData, at, slot.sgeLength[i]);
            at += slot.sgeLength[i];
        }
        slot.inlineLength = total;
    }

    private void checkOpen(int index) throws VerbsException {
        if (destroyed) {
            throw new VerbsException("queue pair is destroyed", Errno.EBADF, index);
        }
    }

    // ---- fabric side, all under the fabric lock ----

    QueuePairState stateLocked() {
        return state;
    }

    boolean hasPendingSend() {
        return sendPending > 0 && state == QueuePairState.READY_TO_SEND;
    }

    SendSlot headSend() {
        return sendRing[sendHead];
    }

    boolean hasPostedReceive() {
        return receivePosted > 0;
    }

    ReceiveSlot headReceive() {
        return receiveRing[receiveHead];
    }

    /** The connection is established: ready to send. */
    void connectTo(LoopbackQueuePair remote) {
        if (state == QueuePairState.INIT) {
            peer = remote;
            state = QueuePairState.READY_TO_SEND;
            if (fabric.rnrRetryFromConnectRequest) {
                rnrRetryCount = remote.attributes().rnrRetryCount();
            }
        }
    }

    /** @return the RNR retry count in force: our own, or the peer's under InfiniBand CM rules */
    int rnrRetryCount() {
        return rnrRetryCount;
    }

    /**
     * Completes the head send: a completion when signaled or failed; a failure moves the queue pair
     * to the error state.
     */
    void completeSend(CompletionStatus status, int byteCount) {
        SendSlot slot = sendRing[sendHead];
        if (isRead(slot)) {
            readsInFlight--;
        }
        sendHead = wrap(sendHead + 1, sendRing.length);
        sendPending--;
        executedUnretired++;
        boolean failed = status != CompletionStatus.SUCCESS;
        if (failed || slot.isSignaled()) {
            boolean added = sendCompletionQueue.add(this, slot.id, status, CompletionOpcode.of(slot.opcode), byteCount, executedUnretired, 0);
            executedUnretired = 0;
            failed |= !added;
        }
        slot.clear();
        if (failed) {
            enterError();
        }
    }

    /** Completes the head receive; a failure moves the queue pair to the error state. */
    void completeReceive(CompletionStatus status, int byteCount, boolean invalidated, int invalidatedKey) {
        ReceiveSlot slot = receiveRing[receiveHead];
        receiveHead = wrap(receiveHead + 1, receiveRing.length);
        receivePosted--;
        boolean added = receiveCompletionQueue.add(this, slot.id, status, CompletionOpcode.RECV, byteCount, 0, 1, invalidated, invalidatedKey);
        if (status != CompletionStatus.SUCCESS || !added) {
            enterError();
        }
    }

    /** A lost link: the oldest unexecuted send fails with {@code status} (the queue pair goes to error). */
    void failHeadSend(CompletionStatus status) {
        if (sendPending > 0 && state == QueuePairState.READY_TO_SEND) {
            completeSend(status, 0);
        }
    }

    /** Moves to the error state and flushes every outstanding request. Idempotent. */
    void enterError() {
        if (state == QueuePairState.ERROR) {
            return;
        }
        state = QueuePairState.ERROR;
        flushSends();
        flushReceives();
    }

    /** From now on the flushes of this queue pair add no completion; its requests stay outstanding until destroyed. */
    void loseFlushes() {
        flushesLost = true;
    }

    private void flushSends() {
        while (sendPending > 0 && !flushesLost) {
            completeSend(CompletionStatus.WORK_REQUEST_FLUSHED, 0);
        }
    }

    private void flushReceives() {
        while (receivePosted > 0 && !flushesLost) {
            completeReceive(CompletionStatus.WORK_REQUEST_FLUSHED, 0, false, 0);
        }
    }

    private void countPostedRead(SendSlot slot) {
        if (isRead(slot)) {
            readsInFlight++;
            maxReadsInFlight = Math.max(maxReadsInFlight, readsInFlight);
        }
    }

    private static boolean isRead(SendSlot slot) {
        return slot.opcode == SendOpcode.RDMA_READ || slot.opcode == SendOpcode.RDMA_READ_WITH_INV;
    }

    /** @return the most RDMA READs this queue pair ever had posted and not yet executed (compare with its ORD) */
    int maxReadsInFlight() {
        return maxReadsInFlight;
    }

    /** A polled completion frees the slots it retires. */
    void retire(int sends, int receives) {
        sendOutstanding -= sends;
        receiveOutstanding -= receives;
    }

    /** The connection is closed: no more posts; the resources it used are released. */
    void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        state = QueuePairState.ERROR;
        peer = null;
        sendPending = 0;
        receivePosted = 0;
        for (SendSlot slot : sendRing) {
            slot.clear();
        }
        sendCompletionQueue.detach();
        receiveCompletionQueue.detach();
        protectionDomain.release();
    }

    @Override
    public String toString() {
        return "LoopbackQueuePair[" + number + " " + state + "]";
    }

    /** Ring index arithmetic without a division: {@code index} is below {@code 2 * length}. */
    private static int wrap(int index, int length) {
        return index < length ? index : index - length;
    }
}
