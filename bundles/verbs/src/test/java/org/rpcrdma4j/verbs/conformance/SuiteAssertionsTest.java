package org.rpcrdma4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.rpcrdma4j.verbs.conformance.VerbsProviderConformanceTest.assertPrivateData;
import static org.rpcrdma4j.verbs.conformance.VerbsProviderConformanceTest.assertRefusedByThePeer;
import static org.rpcrdma4j.verbs.conformance.VerbsProviderConformanceTest.assertStatusOrRxe61;

import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.TransportType;

/** The suite's tolerant assertions still refuse every outcome the contract does not allow. */
class SuiteAssertionsTest {
    private static final byte[] SENT = {1, 2, 3, 4};

    @Test
    void privateDataIsAcceptedExactOrZeroPaddedToTheFieldSize() {
        assertPrivateData(SENT, Connection.MAX_REJECT_PRIVATE_DATA, SENT.clone());
        assertPrivateData(SENT, Connection.MAX_REJECT_PRIVATE_DATA, Arrays.copyOf(SENT, Connection.MAX_REJECT_PRIVATE_DATA));
    }

    @Test
    void privateDataWithOtherBytesNonZeroPaddingOrAnotherLengthFails() {
        byte[] wrongByte = {1, 2, 9, 4};
        assertThrows(AssertionFailedError.class, () -> assertPrivateData(SENT, 148, wrongByte));
        byte[] dirtyPadding = Arrays.copyOf(SENT, 148);
        dirtyPadding[100] = 7;
        assertThrows(AssertionFailedError.class, () -> assertPrivateData(SENT, 148, dirtyPadding));
        assertThrows(AssertionFailedError.class, () -> assertPrivateData(SENT, 148, Arrays.copyOf(SENT, 56)));
        assertThrows(AssertionFailedError.class, () -> assertPrivateData(SENT, 148, Arrays.copyOf(SENT, 3)));
        assertThrows(AssertionFailedError.class, () -> assertPrivateData(SENT, 148, new byte[0]));
    }

    @Test
    void aLocalErrorIsAcceptedAsExpectedOrAsRxesLocalQpOperationError() {
        assertStatusOrRxe61(CompletionStatus.LOCAL_LENGTH_ERROR, CompletionStatus.LOCAL_LENGTH_ERROR);
        assertStatusOrRxe61(CompletionStatus.LOCAL_LENGTH_ERROR, CompletionStatus.LOCAL_QP_OPERATION_ERROR);
        assertStatusOrRxe61(CompletionStatus.LOCAL_PROTECTION_ERROR, CompletionStatus.LOCAL_QP_OPERATION_ERROR);
    }

    @Test
    void successAFlushOrARemoteErrorStillFails() {
        for (CompletionStatus wrong : new CompletionStatus[] {CompletionStatus.SUCCESS, CompletionStatus.WORK_REQUEST_FLUSHED,
            CompletionStatus.REMOTE_ACCESS_ERROR, CompletionStatus.REMOTE_INVALID_REQUEST_ERROR, CompletionStatus.LOCAL_PROTECTION_ERROR}) {
            assertThrows(AssertionFailedError.class, () -> assertStatusOrRxe61(CompletionStatus.LOCAL_LENGTH_ERROR, wrong), wrong.name());
        }
    }

    @Test
    void aRefusalIsARemoteAccessErrorOnInfinibandAndRoceOnly() {
        for (TransportType ib : new TransportType[] {TransportType.INFINIBAND, TransportType.ROCE}) {
            assertRefusedByThePeer(ib, true, CompletionStatus.REMOTE_ACCESS_ERROR);
            for (CompletionStatus wrong : new CompletionStatus[] {CompletionStatus.SUCCESS, CompletionStatus.WORK_REQUEST_FLUSHED,
                CompletionStatus.LOCAL_PROTECTION_ERROR}) {
                assertThrows(AssertionFailedError.class, () -> assertRefusedByThePeer(ib, true, wrong), ib + " " + wrong);
                assertThrows(AssertionFailedError.class, () -> assertRefusedByThePeer(ib, false, wrong), ib + " " + wrong);
            }
        }
    }

    @Test
    void onIwarpARefusalMayBeFlushedAndAnUnacknowledgedWriteMayHaveSucceeded() {
        assertRefusedByThePeer(TransportType.IWARP, false, CompletionStatus.REMOTE_ACCESS_ERROR);
        assertRefusedByThePeer(TransportType.IWARP, false, CompletionStatus.WORK_REQUEST_FLUSHED);
        assertRefusedByThePeer(TransportType.IWARP, true, CompletionStatus.SUCCESS);
        assertThrows(AssertionFailedError.class, () -> assertRefusedByThePeer(TransportType.IWARP, false, CompletionStatus.SUCCESS));
        for (CompletionStatus wrong : new CompletionStatus[] {CompletionStatus.LOCAL_PROTECTION_ERROR, CompletionStatus.LOCAL_LENGTH_ERROR,
            CompletionStatus.REMOTE_INVALID_REQUEST_ERROR}) {
            assertThrows(AssertionFailedError.class, () -> assertRefusedByThePeer(TransportType.IWARP, true, wrong), wrong.name());
        }
    }
}
