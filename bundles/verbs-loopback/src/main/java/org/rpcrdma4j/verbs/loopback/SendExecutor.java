package org.rpcrdma4j.verbs.loopback;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.QueuePairState;
import org.rpcrdma4j.verbs.SendOpcode;

/**
 * Executes the head of a queue pair's send queue with RC semantics: key, domain, access and bounds
 * checks on every access; data moved between the two sides' registered memory; SEND into the
 * peer's next receive with RNR retry; invalidation and fast registration.
 *
 * <p>Error classes as on InfiniBand: a bad local SGE fails only the requester (LOCAL_PROTECTION);
 * a bad remote key fails both (REMOTE_ACCESS at the requester, the responder goes to error too); a
 * receive too small fails the responder's receive (LOCAL_LENGTH) and the requester
 * (REMOTE_INVALID_REQUEST); a peer in error does not answer (TRANSPORT_RETRY_EXCEEDED).
 *
 * <p>Threading: under the fabric lock only.
 */
final class SendExecutor {
    /** The head request was executed (successfully or not). */
    static final int EXECUTED = 2;
    /** The head SEND found no receive and used up one RNR retry. */
    static final int RNR_RETRIED = 1;
    /** Nothing happened: the head SEND waits for a receive (infinite RNR retry, or RNR timer running). */
    static final int WAITING = 0;

    private final LoopbackFabric fabric;
    private final KeyTable keys;
    private final Segments local;
    private final Segments remote;

    SendExecutor(LoopbackFabric fabric, int maxSge) {
        this.fabric = fabric;
        this.keys = fabric.keys;
        this.local = new Segments(maxSge);
        this.remote = new Segments(maxSge);
    }

    int executeHead(LoopbackQueuePair qp) {
        SendSlot slot = qp.headSend();
        CompletionStatus targeted = fabric.faults.targeted(qp, LoopbackFaults.WorkKind.of(slot.opcode));
        if (targeted != null) {
            return failLocal(qp, targeted);
        }
        try {
            switch (slot.opcode) {
                case SEND:
                case SEND_WITH_INV:
                    return executeSend(qp, slot);
                case RDMA_WRITE:
                    return executeWrite(qp, slot);
                case RDMA_READ:
                case RDMA_READ_WITH_INV:
                    return executeRead(qp, slot);
                case LOCAL_INV:
                    return executeLocalInvalidate(qp, slot);
                case REG_MR:
                    return executeRegistration(qp, slot);
                default:
                    qp.completeSend(CompletionStatus.LOCAL_QP_OPERATION_ERROR, 0);
                    return EXECUTED;
            }
        } finally {
            local.clear();
            remote.clear();
        }
    }

    private int executeSend(LoopbackQueuePair qp, SendSlot slot) {
        if (!slot.isInline() && !resolveLocalSource(qp, slot)) {
            return failLocal(qp, CompletionStatus.LOCAL_PROTECTION_ERROR);
        }
        LoopbackQueuePair peer = qp.peer;
        if (!isResponding(peer)) {
            return failLocal(qp, CompletionStatus.TRANSPORT_RETRY_EXCEEDED);
        }
        if (!peer.hasPostedReceive()) {
            return receiverNotReady(qp, slot);
        }
        if (injectFault(qp)) {
            return EXECUTED;
        }
        CompletionStatus receiveFault = fabric.faults.targeted(peer, LoopbackFaults.WorkKind.RECV);
        if (receiveFault != null) {
            return failBoth(qp, CompletionStatus.REMOTE_OPERATION_ERROR, peer, receiveFault);
        }
        ReceiveSlot receive = peer.headReceive();
        int length = slot.payloadLength();
        if (!remote.resolve(keys, peer.protectionDomain, receive.sgeAddress, receive.sgeLength, receive.sgeKey, receive.sgeCount, Access.LOCAL_WRITE)) {
            return failBoth(qp, CompletionStatus.REMOTE_OPERATION_ERROR, peer, CompletionStatus.LOCAL_PROTECTION_ERROR);
        }
        if (remote.total() < length) {
            return failBoth(qp, CompletionStatus.REMOTE_INVALID_REQUEST_ERROR, peer, CompletionStatus.LOCAL_LENGTH_ERROR);
        }
        RegisteredMemory invalidated = null;
        if (slot.opcode == SendOpcode.SEND_WITH_INV) {
            invalidated = invalidatable(peer.protectionDomain, slot.invalidateKey);
            if (invalidated == null) {
                return failBoth(qp, CompletionStatus.REMOTE_INVALID_REQUEST_ERROR, peer, CompletionStatus.LOCAL_PROTECTION_ERROR);
            }
        }
        if (slot.inlineLength >= 0) {
            Segments.copy(slot.inlineData, remote, length);
        } else {
            Segments.copy(local, remote, length);
        }
        if (invalidated != null) {
            ((LoopbackFastRegistrationRegion) invalidated).invalidate();
        }
        peer.completeReceive(CompletionStatus.SUCCESS, length, invalidated != null, slot.invalidateKey);
        qp.completeSend(CompletionStatus.SUCCESS, length);
        return EXECUTED;
    }

    private int executeWrite(LoopbackQueuePair qp, SendSlot slot) {
        if (!slot.isInline() && !resolveLocalSource(qp, slot)) {
            return failLocal(qp, CompletionStatus.LOCAL_PROTECTION_ERROR);
        }
        LoopbackQueuePair peer = qp.peer;
        if (!isResponding(peer)) {
            return failLocal(qp, CompletionStatus.TRANSPORT_RETRY_EXCEEDED);
        }
        if (injectFault(qp)) {
            return EXECUTED;
        }
        int length = slot.payloadLength();
        if (!remote.resolveRemote(keys, peer.protectionDomain, slot.remoteAddress, length, slot.rkey, Access.REMOTE_WRITE)) {
            return failBothRemoteAccess(qp, peer);
        }
        if (slot.inlineLength >= 0) {
            Segments.copy(slot.inlineData, remote, length);
        } else {
            Segments.copy(local, remote, length);
        }
        qp.completeSend(CompletionStatus.SUCCESS, length);
        return EXECUTED;
    }

    private int executeRead(LoopbackQueuePair qp, SendSlot slot) {
        int sinkAccess = Segments.readSinkAccess(fabric.capabilities().transportType().readSinkRequiresRemoteWrite());
        if (!local.resolve(keys, qp.protectionDomain, slot.sgeAddress, slot.sgeLength, slot.sgeKey, slot.sgeCount, sinkAccess)) {
            return failLocal(qp, CompletionStatus.LOCAL_PROTECTION_ERROR);
        }
        LoopbackQueuePair peer = qp.peer;
        if (!isResponding(peer)) {
            return failLocal(qp, CompletionStatus.TRANSPORT_RETRY_EXCEEDED);
        }
        if (injectFault(qp)) {
            return EXECUTED;
        }
        int length = (int) local.total();
        if (!remote.resolveRemote(keys, peer.protectionDomain, slot.remoteAddress, length, slot.rkey, Access.REMOTE_READ)) {
            return failBothRemoteAccess(qp, peer);
        }
        if (fabric.capabilities().transportType().readSinkRequiresRemoteWrite()) {
            fabric.readRequestSeen(slot.sgeKey[0], slot.sgeAddress[0], length);
        }
        Segments.copy(remote, local, length);
        if (slot.opcode == SendOpcode.RDMA_READ_WITH_INV) {
            RegisteredMemory sink = invalidatable(qp.protectionDomain, slot.invalidateKey);
            if (sink == null) {
                return failLocal(qp, CompletionStatus.LOCAL_PROTECTION_ERROR);
            }
            ((LoopbackFastRegistrationRegion) sink).invalidate();
        }
        qp.completeSend(CompletionStatus.SUCCESS, length);
        return EXECUTED;
    }

    private int executeLocalInvalidate(LoopbackQueuePair qp, SendSlot slot) {
        if (injectFault(qp)) {
            return EXECUTED;
        }
        RegisteredMemory target = invalidatable(qp.protectionDomain, slot.invalidateKey);
        if (target == null) {
            return failLocal(qp, CompletionStatus.LOCAL_PROTECTION_ERROR);
        }
        ((LoopbackFastRegistrationRegion) target).invalidate();
        qp.completeSend(CompletionStatus.SUCCESS, 0);
        return EXECUTED;
    }

    private int executeRegistration(LoopbackQueuePair qp, SendSlot slot) {
        if (injectFault(qp)) {
            return EXECUTED;
        }
        LoopbackFastRegistrationRegion region = slot.registrationRegion;
        if (region.protectionDomain != qp.protectionDomain) {
            return failLocal(qp, CompletionStatus.LOCAL_PROTECTION_ERROR);
        }
        ByteBuffer buffer = slot.registrationBuffer;
        int index = slot.registrationIndex;
        int length = slot.registrationLength;
        boolean writable = (slot.registrationAccess & (Access.LOCAL_WRITE | Access.REMOTE_WRITE)) != 0;
        if (!region.isRegistrable() || buffer == null || !buffer.isDirect() || (writable && buffer.isReadOnly())
                || !Access.isValid(slot.registrationAccess) || length <= 0 || length > region.maxLength()
                || index < 0 || index > buffer.capacity() - length) {
            return failLocal(qp, CompletionStatus.LOCAL_QP_OPERATION_ERROR);
        }
        region.buffer = buffer;
        region.bufferOffset = index;
        region.length = length;
        region.access = slot.registrationAccess;
        region.valid = true;
        qp.completeSend(CompletionStatus.SUCCESS, 0);
        return EXECUTED;
    }

    private boolean resolveLocalSource(LoopbackQueuePair qp, SendSlot slot) {
        return local.resolve(keys, qp.protectionDomain, slot.sgeAddress, slot.sgeLength, slot.sgeKey, slot.sgeCount, 0);
    }

    /** @return the valid fast-registration memory of the domain under the key, or null */
    private RegisteredMemory invalidatable(LoopbackProtectionDomain domain, int key) {
        RegisteredMemory memory = keys.lookup(key);
        return memory != null && memory.isFastRegistration() && memory.protectionDomain == domain ? memory : null;
    }

    private static boolean isResponding(LoopbackQueuePair peer) {
        return peer != null && peer.stateLocked() == QueuePairState.READY_TO_SEND;
    }

    /** No receive at the peer: retry later, or fail once the RNR retry count is used up. */
    private int receiverNotReady(LoopbackQueuePair qp, SendSlot slot) {
        int retryCount = qp.rnrRetryCount();
        if (retryCount == QueuePairAttributes.RNR_RETRY_INFINITE) {
            return WAITING;
        }
        if (!fabric.rnrTimerExpired(slot)) {
            return WAITING;
        }
        if (slot.rnrAttempts++ >= retryCount) {
            qp.completeSend(CompletionStatus.RNR_RETRY_EXCEEDED, 0);
            return EXECUTED;
        }
        return RNR_RETRIED;
    }

    private boolean injectFault(LoopbackQueuePair qp) {
        CompletionStatus injected = fabric.faults.nextExecution();
        if (injected == null) {
            return false;
        }
        qp.completeSend(injected, 0);
        return true;
    }

    private static int failLocal(LoopbackQueuePair qp, CompletionStatus status) {
        qp.completeSend(status, 0);
        return EXECUTED;
    }

    private static int failBothRemoteAccess(LoopbackQueuePair qp, LoopbackQueuePair peer) {
        qp.completeSend(CompletionStatus.REMOTE_ACCESS_ERROR, 0);
        peer.enterError();
        return EXECUTED;
    }

    private static int failBoth(LoopbackQueuePair qp, CompletionStatus requesterStatus, LoopbackQueuePair peer, CompletionStatus responderStatus) {
        peer.completeReceive(responderStatus, 0, false, 0);
        qp.completeSend(requesterStatus, 0);
        return EXECUTED;
    }
}
