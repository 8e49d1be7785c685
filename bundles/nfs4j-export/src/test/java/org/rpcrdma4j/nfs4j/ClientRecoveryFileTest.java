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
import java.time.Duration;
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

    private static final Duration GRACE = Duration.ofSeconds(60);

    @TempDir
    Path state;

    /** The records' clock (nanoseconds), moved by the tests. */
    private long now = 1_000_000_000L;

    private ClientRecoveryFile open() throws IOException {
        return new ClientRecoveryFile(state, GRACE, () -> now);
    }

    @Test
    void clientsOfThePreviousRunMayReclaimUntilTheGracePeriodEnds() throws Exception {
        try (ClientRecoveryFile first = open()) {
            assertFalse(first.waitingForReclaim(), "a first start has nobody to wait for");
            first.addClient(ALICE);
            first.addClient(BOB);
            first.addClient(EVE);
            first.removeClient(EVE);
        }
        assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(state.resolve(ClientRecoveryFile.FILE_NAME))));
        try (ClientRecoveryFile second = open()) {
            assertTrue(second.waitingForReclaim());
            assertDoesNotThrow(() -> second.wantReclaim(ALICE));
            assertThrows(ReclaimBadException.class, () -> second.wantReclaim(EVE), "EVE destroyed its client id");
            second.addClient(ALICE);
            second.reclaimClient(ALICE);
            assertTrue(second.waitingForReclaim(), "BOB has not reclaimed yet");
        }
        // A crash during the grace period: BOB may still reclaim, and so may ALICE (now a client of that run).
        try (ClientRecoveryFile third = open()) {
            third.heardFromClient();
            assertDoesNotThrow(() -> third.wantReclaim(BOB));
            assertDoesNotThrow(() -> third.wantReclaim(ALICE));
            now += GRACE.toNanos();
            third.reclaimComplete();
            assertFalse(third.waitingForReclaim());
            assertThrows(NoGraceException.class, () -> third.wantReclaim(BOB));
        }
    }

    @Test
    void theGracePeriodEndsWhenTheLastClientReclaimed() throws Exception {
        try (ClientRecoveryFile first = open()) {
            first.addClient(ALICE);
        }
        try (ClientRecoveryFile second = open()) {
            second.reclaimClient(ALICE);
            assertFalse(second.waitingForReclaim());
            assertThrows(NoGraceException.class, () -> second.wantReclaim(ALICE));
        }
    }

    /**
     * nfs4j's timer ends the grace period one lease after the server started; clients that could
     * not reach it yet (the RDMA transport still starting in Karaf) keep their
     * right to reclaim until a grace period has passed since the first client call.
     */
    @Test
    void theGracePeriodCountsFromTheFirstClientCall() throws Exception {
        try (ClientRecoveryFile first = open()) {
            first.addClient(ALICE);
            first.addClient(BOB);
        }
        try (ClientRecoveryFile second = open()) {
            now += GRACE.toNanos() + 13_000_000_000L; // nfs4j's timer, 13 s before any transport listened
            second.reclaimComplete();
            assertTrue(second.waitingForReclaim(), "no client could reach the server yet: the grace period stays");
            assertDoesNotThrow(() -> second.wantReclaim(ALICE));
            second.heardFromClient(); // the first call
            now += GRACE.toNanos() - 1;
            second.heardFromClient(); // later calls do not move the start
            assertDoesNotThrow(() -> second.wantReclaim(BOB), "1 ns before a grace period since the first call");
            second.reclaimClient(ALICE);
            now += 1;
            assertThrows(NoGraceException.class, () -> second.wantReclaim(BOB), "a grace period since the first call");
            assertFalse(second.waitingForReclaim());
        }
        try (ClientRecoveryFile third = open()) {
            assertFalse(third.waitingForReclaim(), "the ended grace period is on disk: BOB's right is gone");
        }
    }

    @Test
    void aDamagedFileIsRefusedNamingTheLine() throws IOException {
        Files.writeString(state.resolve(ClientRecoveryFile.FILE_NAME), "C 616c696365\nnot a record\n");
        IOException refused = assertThrows(IOException.class, () -> open());
        assertTrue(refused.getMessage().contains("line 2"), refused.getMessage());
    }
}
