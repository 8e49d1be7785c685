package org.rpcrdma4j.nfs4j;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.dcache.nfs.status.NoGraceException;
import org.dcache.nfs.status.ReclaimBadException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ClientRecoveryFileTest - NFSv4 stable storage across restarts: who may reclaim, until when,
 * and that a crash during the grace period keeps the rights of who has not reclaimed yet.
 */
class ClientRecoveryFileTest {

    private static final byte[] ALICE = "alice-owner".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BOB = "bob-owner".getBytes(StandardCharsets.UTF_8);
    private static final byte[] EVE = "eve-owner".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path state;

    @Test
    void clientsOfThePreviousRunMayReclaimUntilTheGracePeriodEnds() throws Exception {
        try (ClientRecoveryFile first = new ClientRecoveryFile(state)) {
            assertFalse(first.waitingForReclaim(), "a first start has nobody to wait for");
            first.addClient(ALICE);
            first.addClient(BOB);
            first.addClient(EVE);
            first.removeClient(EVE);
        }
        assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(state.resolve(ClientRecoveryFile.FILE_NAME))));
        try (ClientRecoveryFile second = new ClientRecoveryFile(state)) {
            assertTrue(second.waitingForReclaim());
            assertDoesNotThrow(() -> second.wantReclaim(ALICE));
            assertThrows(ReclaimBadException.class, () -> second.wantReclaim(EVE), "EVE destroyed its client id");
            second.addClient(ALICE);
            second.reclaimClient(ALICE);
            assertTrue(second.waitingForReclaim(), "BOB has not reclaimed yet");
        }
        // A crash during the grace period: BOB may still reclaim, and so may ALICE (now a client of that run).
        try (ClientRecoveryFile third = new ClientRecoveryFile(state)) {
            assertDoesNotThrow(() -> third.wantReclaim(BOB));
            assertDoesNotThrow(() -> third.wantReclaim(ALICE));
            third.reclaimComplete();
            assertFalse(third.waitingForReclaim());
            assertThrows(NoGraceException.class, () -> third.wantReclaim(BOB));
        }
    }

    @Test
    void theGracePeriodEndsWhenTheLastClientReclaimed() throws Exception {
        try (ClientRecoveryFile first = new ClientRecoveryFile(state)) {
            first.addClient(ALICE);
        }
        try (ClientRecoveryFile second = new ClientRecoveryFile(state)) {
            second.reclaimClient(ALICE);
            assertFalse(second.waitingForReclaim());
            assertThrows(NoGraceException.class, () -> second.wantReclaim(ALICE));
        }
    }

    @Test
    void aDamagedFileIsRefusedNamingTheLine() throws IOException {
        Files.writeString(state.resolve(ClientRecoveryFile.FILE_NAME), "C 616c696365\nnot a record\n");
        IOException refused = assertThrows(IOException.class, () -> new ClientRecoveryFile(state));
        assertTrue(refused.getMessage().contains("line 2"), refused.getMessage());
    }
}
