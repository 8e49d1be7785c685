package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.ReceiveWorkRequest;

/** A receive-queue entry: the copy of a posted {@link ReceiveWorkRequest}, preallocated per slot. */
final class ReceiveSlot {
    final long[] sgeAddress;
    final int[] sgeLength;
    final int[] sgeKey;
    int sgeCount;
    long id;

    ReceiveSlot(int maxSge) {
        sgeAddress = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeKey = new int[maxSge];
    }

    void copyFrom(ReceiveWorkRequest request) {
        id = request.id();
        sgeCount = request.sgeCount();
        for (int i = 0; i < sgeCount; i++) {
            sgeAddress[i] = request.sge(i).address();
            sgeLength[i] = request.sge(i).length();
            sgeKey[i] = request.sge(i).lkey();
        }
    }
}
