package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.CompletionOpcode;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * One slot of a loopback completion queue's ring, preallocated and overwritten in place. It also
 * carries how many send or receive queue slots polling it retires, and the fabric tick from which
 * it becomes visible (delayed completions).
 */
final class CompletionEntry {
    long id;
    CompletionStatus status;
    CompletionOpcode opcode;
    int byteCount;
    LoopbackQueuePair queuePair;
    int retiredSends;
    int retiredReceives;
    boolean invalidated;
    int invalidatedKey;
    long visibleAtTick;

    void copyTo(WorkCompletion completion) {
        completion.set(id, status, opcode, byteCount, queuePair.number());
        if (invalidated) {
            completion.invalidated(invalidatedKey);
        }
    }

    void clear() {
        queuePair = null;
    }
}
