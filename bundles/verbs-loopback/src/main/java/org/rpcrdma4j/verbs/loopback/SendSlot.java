package org.rpcrdma4j.verbs.loopback;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;

/**
 * A send-queue entry: the copy of a posted {@link SendWorkRequest} (the caller reuses its object),
 * preallocated per queue slot, with the inline payload copied at post time and the RNR retry
 * state of a SEND waiting for the peer's receive.
 */
final class SendSlot {
    final long[] sgeAddress;
    final int[] sgeLength;
    final int[] sgeKey;
    final byte[] inlineData;
    int sgeCount;
    int inlineLength;
    long id;
    SendOpcode opcode;
    int flags;
    long remoteAddress;
    int rkey;
    int invalidateKey;
    LoopbackFastRegistrationRegion registrationRegion;
    ByteBuffer registrationBuffer;
    int registrationIndex;
    int registrationLength;
    int registrationAccess;
    int rnrAttempts;
    long rnrNextAttemptNanos;

    SendSlot(int maxSge, int maxInlineData) {
        sgeAddress = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeKey = new int[maxSge];
        inlineData = new byte[maxInlineData];
    }

    void copyFrom(SendWorkRequest request) {
        id = request.id();
        opcode = request.opcode();
        flags = request.flags();
        sgeCount = request.sgeCount();
        for (int i = 0; i < sgeCount; i++) {
            sgeAddress[i] = request.sge(i).address();
            sgeLength[i] = request.sge(i).length();
            sgeKey[i] = request.sge(i).lkey();
        }
        remoteAddress = request.remoteAddress();
        rkey = request.rkey();
        invalidateKey = request.invalidateKey();
        registrationRegion = (LoopbackFastRegistrationRegion) request.registrationRegion();
        registrationBuffer = request.registrationBuffer();
        registrationIndex = request.registrationIndex();
        registrationLength = request.registrationLength();
        registrationAccess = request.registrationAccess();
        inlineLength = -1;
        rnrAttempts = 0;
        rnrNextAttemptNanos = 0;
    }

    boolean isInline() {
        return (flags & SendWorkRequest.INLINE) != 0;
    }

    boolean isSignaled() {
        return (flags & SendWorkRequest.SIGNALED) != 0;
    }

    /** @return the total length of the SGE list (or of the inline copy) */
    int payloadLength() {
        if (inlineLength >= 0) {
            return inlineLength;
        }
        long total = 0;
        for (int i = 0; i < sgeCount; i++) {
            total += sgeLength[i];
        }
        return (int) Math.min(total, Integer.MAX_VALUE);
    }

    /** Drops references to caller memory once the request is done. */
    void clear() {
        registrationRegion = null;
        registrationBuffer = null;
    }
}
