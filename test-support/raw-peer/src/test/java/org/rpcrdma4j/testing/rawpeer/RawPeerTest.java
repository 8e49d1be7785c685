package org.rpcrdma4j.testing.rawpeer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.DecodeStatus;
import org.rpcrdma4j.codec.HeaderDecoder;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;
import org.rpcrdma4j.verbs.loopback.LoopbackFaults.WorkKind;

/**
 * The raw peer against an {@link EchoResponder} on a deterministic loopback fabric: connecting,
 * well-formed and verbatim SENDs, in-place receives with reposting, failures made visible,
 * timeouts that name what they waited for, and a close that gives every resource back.
 */
class RawPeerTest {
    private static final ConnectionPrivateData OFFERED = new ConnectionPrivateData(4096, 4096, false);
    private static final PeerShape SHAPE = PeerShape.builder().slotBytes(EchoResponder.SLOT).sendSlots(4).receiveSlots(4)
            .source(64 * 1024, Access.REMOTE_READ).sinkBytes(64 * 1024).build();

    private LoopbackFabric fabric;
    private EchoResponder responder;
    private int registrations;
    private int queuePairs;
    private int completionQueues;

    @BeforeEach
    void startResponder() throws Exception {
        fabric = LoopbackFabric.deterministic();
        registrations = fabric.registrationCount();
        queuePairs = fabric.queuePairCount();
        completionQueues = fabric.completionQueueCount();
        responder = new EchoResponder(fabric.provider());
    }

    @AfterEach
    void stop() throws Exception {
        responder.close();
        fabric.close();
    }

    private RawPeer connect(PeerShape shape) throws Exception {
        RawPeer peer = RawPeer.open(fabric.provider(), responder.address(), shape, OFFERED);
        drive(peer, peer::isEstablished, "the peer connects");
        return peer;
    }

    private void drive(RawPeer peer, BooleanSupplier done, String what) throws Exception {
        for (int i = 0; i < 1000 && !done.getAsBoolean(); i++) {
            fabric.runUntilIdle();
            responder.doWork();
            peer.poll();
        }
        assertTrue(done.getAsBoolean(), what);
    }

    @Test
    void aWellFormedMessageMakesTheRoundTrip() throws Exception {
        try (RawPeer peer = connect(SHAPE)) {
            assertEquals(EchoResponder.ACCEPTED, peer.acceptedParameters(), "the accept's private data, decoded");
            peer.sendMessage(0x51, 8, RpcCallHeader.call(0x51, 100003, 3, 6, new byte[] {0, 0, 0, 7}));
            List<byte[]> replies = new ArrayList<>();
            drive(peer, () -> {
                replies.addAll(peer.takeReplies());
                return !replies.isEmpty();
            }, "the echo comes back");

            ByteBuffer echo = ByteBuffer.wrap(replies.get(0));
            ParsedHeader header = new ParsedHeader(RpcRdmaLimits.DEFAULTS);
            DecodeStatus status = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER)
                    .decode(echo, 0, echo.capacity(), header);
            assertEquals(DecodeStatus.OK, status, "the peer's header decodes");
            assertEquals(0x51, header.xid());
            assertEquals(RpcRdma.RDMA_MSG, header.proc());
            assertEquals(8, header.credits());
            assertEquals(RpcCallHeader.BYTES + 4, header.bodyLength(), "the RPC message follows the header");
            int body = header.bodyOffset();
            assertEquals(0x51, echo.getInt(body), "RPC xid");
            assertEquals(0, echo.getInt(body + 4), "CALL");
            assertEquals(2, echo.getInt(body + 8), "RPC version 2");
            assertEquals(100003, echo.getInt(body + 12), "program");
            assertEquals(3, echo.getInt(body + 16), "version");
            assertEquals(6, echo.getInt(body + 20), "procedure");
            assertEquals(7, echo.getInt(body + RpcCallHeader.BYTES), "the arguments");
            assertEquals(1, peer.sendsCompleted());
        }
    }

    @Test
    void malformedBytesGoOutVerbatim() throws Exception {
        try (RawPeer peer = connect(SHAPE)) {
            byte[] garbage = {1, 2, 3, 4, 5, 6, 7};
            peer.send(garbage);
            drive(peer, () -> !responder.received().isEmpty(), "the responder receives it");
            assertArrayEquals(garbage, responder.received().get(0), "not a byte added, dropped or aligned");
        }
    }

    @Test
    void inPlaceReceivesAreRepostedSoMoreMessagesComeThanThereAreSlots() throws Exception {
        try (RawPeer peer = connect(SHAPE)) {
            int[] seen = new int[1];
            ReceiveHandler firstWord = (buffer, offset, length) -> {
                assertEquals(4, length);
                assertEquals(seen[0], buffer.getInt(offset), "messages in order, read in place");
                seen[0]++;
            };
            int messages = 3 * SHAPE.receiveSlots();
            for (int i = 0; i < messages; i++) {
                peer.sendBuffer().putInt(0, i);
                peer.postSend(0, 4);
                int expected = i + 1;
                for (int round = 0; round < 100 && seen[0] < expected; round++) {
                    fabric.runUntilIdle();
                    responder.doWork();
                    peer.pollCompletions(firstWord);
                }
            }
            assertEquals(messages, seen[0], "every echo arrived: the receives were reposted");
            assertTrue(peer.takeReplies().isEmpty(), "handled in place, nothing copied");
        }
    }

    @Test
    void aFailedSendIsCountedAndDescribed() throws Exception {
        try (RawPeer peer = connect(SHAPE)) {
            fabric.faults().failNext(WorkKind.SEND, peer.connection(), CompletionStatus.LOCAL_PROTECTION_ERROR);
            peer.send(new byte[] {0, 0, 0, 1});
            drive(peer, () -> peer.sendsFailed() == 1, "the SEND completes in error");
            drive(peer, () -> peer.receivesFailed() == SHAPE.receiveSlots(), "the broken queue pair flushes its receives");
            assertEquals(0, peer.sendsCompleted());
            assertTrue(peer.firstFailure().contains("LOCAL_PROTECTION_ERROR"), peer.firstFailure());
            assertTrue(peer.firstFailure().startsWith("send "), peer.firstFailure());
        }
    }

    @Test
    void waitingForTheConnectionNamesWhatItWaitedFor() throws Exception {
        try (RawPeer peer = RawPeer.open(fabric.provider(), responder.address(), SHAPE, OFFERED)) {
            // Nobody steps the deterministic fabric: the request never arrives.
            TimeoutException e = assertThrows(TimeoutException.class, () -> peer.awaitEstablished(Duration.ofMillis(50)));
            assertTrue(e.getMessage().contains("no ESTABLISHED within PT0.05S"), e.getMessage());
            assertTrue(e.getMessage().contains(responder.address().toString()), e.getMessage());
        }
    }

    @Test
    void waitingForRepliesNamesHowManyCame() throws Exception {
        try (RawPeer peer = connect(SHAPE)) {
            TimeoutException e = assertThrows(TimeoutException.class, () -> peer.awaitReplies(2, Duration.ofMillis(50)));
            assertTrue(e.getMessage().contains("0 of 2 messages within PT0.05S"), e.getMessage());
        }
    }

    @Test
    void aClosedPeerGivesBackEveryRegionQueueAndQueuePair() throws Exception {
        RawPeer peer = connect(SHAPE);
        peer.send(new byte[] {0, 0, 0, 1});
        drive(peer, () -> peer.sendsCompleted() == 1, "one SEND");
        assertEquals(registrations + 4 + 2, fabric.registrationCount(), "send, receive, source, sink; the responder's two");
        peer.close();
        peer.close();
        assertTrue(peer.isClosed());
        assertEquals(0, peer.poll(), "a closed peer does nothing");
        responder.close();
        assertEquals(registrations, fabric.registrationCount(), "every registration released");
        assertEquals(queuePairs, fabric.queuePairCount(), "every queue pair destroyed");
        assertEquals(completionQueues, fabric.completionQueueCount(), "every completion queue closed");
        responder = new EchoResponder(fabric.provider());
    }

    @Test
    void aPeerClosedBeforeItConnectedGivesBackEverything() throws Exception {
        RawPeer peer = RawPeer.open(fabric.provider(), responder.address(), PeerShape.builder().build(), null);
        assertFalse(peer.isEstablished());
        assertEquals(registrations + 2, fabric.registrationCount(), "send and receive slots: no source or sink in this shape");
        peer.close();
        assertEquals(registrations, fabric.registrationCount());
        assertEquals(queuePairs, fabric.queuePairCount());
        assertEquals(completionQueues, fabric.completionQueueCount());
    }

    @Test
    void aShapeWithoutASourceRefusesToExposeChunks() throws Exception {
        try (RawPeer peer = connect(PeerShape.builder().build())) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> peer.memory().exposeChunk(new byte[4], 0, 4));
            assertTrue(e.getMessage().contains("no source region"), e.getMessage());
        }
    }

    @Test
    void aMessageLongerThanASlotIsRefusedAndTheSlotStaysFree() throws Exception {
        try (RawPeer peer = connect(PeerShape.builder().slotBytes(64).sendSlots(1).build())) {
            assertThrows(IllegalArgumentException.class, () -> peer.sendMessage(1, 1, new byte[60]));
            assertThrows(IllegalArgumentException.class, () -> peer.send(new byte[65]));
            assertTrue(peer.canSend(), "the one slot is still free");
            peer.send(new byte[64]);
            assertFalse(peer.canSend(), "now it is in flight");
            assertThrows(IllegalStateException.class, () -> peer.send(new byte[4]));
        }
    }

    @Test
    void badShapesNameTheirField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PeerShape.builder().sendSlots(0));
        assertTrue(e.getMessage().startsWith("sendSlots"), e.getMessage());
    }
}
