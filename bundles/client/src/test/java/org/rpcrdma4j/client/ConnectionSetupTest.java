package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/** Connection setup: RFC 8797 private data both ways, its absence, rejection. */
class ConnectionSetupTest {

    @Test
    void connectRequestCarriesOurSizesAndFlag() throws Exception {
        ClientConfig config = ClientConfig.builder().sendInlineSize(2048).receiveInlineSize(8192).remoteInvalidation(true).build();
        try (Harness h = Harness.connected(config)) {
            // magic; version 1, flags 1, send size 2 KiB - 1 unit, receive size 8 KiB - 1 unit
            assertArrayEquals(Wire.words().i(0xf6ab0e18, 0x01_01_01_07).toBytes(), h.peer.clientPrivateData());
        }
    }

    @Test
    void connectRequestWithoutPrivateDataWhenTurnedOff() throws Exception {
        try (Harness h = Harness.connected(ClientConfig.builder().advertisePrivateData(false).build())) {
            assertEquals(0, h.peer.clientPrivateData().length);
        }
    }

    @Test
    void serverPrivateDataSetsTheSendLimit() throws Exception {
        try (Harness h = Harness.accepting(ClientConfig.defaults(), Harness.serverPrivateData(8192, 2048, true))) {
            assertEquals(new ConnectionParameters(2048, 8192, true, true), h.client.established().join());
            assertEquals(new ConnectionParameters(2048, 8192, true, true), h.client.serverParameters());
            assertEquals(2048, h.client.sendLimit(), "the server's receive size caps our sends");
        }
    }

    @Test
    void ourSendSizeCapsTheSendLimit() throws Exception {
        ClientConfig config = ClientConfig.builder().sendInlineSize(1024).build();
        try (Harness h = Harness.accepting(config, Harness.serverPrivateData(8192, 8192, false))) {
            assertEquals(1024, h.client.sendLimit());
        }
    }

    @Test
    void acceptWithoutPrivateDataMeansTheRfc8166Defaults() throws Exception {
        try (Harness h = Harness.accepting(ClientConfig.defaults(), ByteBuffer.allocate(0))) {
            assertEquals(ConnectionParameters.DEFAULTS, h.client.serverParameters());
            assertEquals(1024, h.client.sendLimit());
        }
    }

    @Test
    void acceptWithForeignPrivateDataMeansTheDefaults() throws Exception {
        try (Harness h = Harness.accepting(ClientConfig.defaults(), Wire.words().i(0x12345678, 0x01000303).toBuffer())) {
            assertFalse(h.client.serverParameters().fromPrivateData());
            assertEquals(1024, h.client.sendLimit());
        }
    }

    @Test
    void rejectedConnectFailsEstablishedAndLeavesNothing() throws Exception {
        try (LoopbackFabric fabric = LoopbackFabric.deterministic(); ScriptedPeer peer = new ScriptedPeer(fabric, 4096, 4)) {
            RpcRdmaClient client = RpcRdmaClient.start(fabric.provider(), peer.address(), ClientConfig.defaults());
            peer.reject();
            client.doWork();
            ExecutionException e = assertThrows(ExecutionException.class, () -> client.established().get());
            assertInstanceOf(ClientClosedException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("REJECTED"), e.getCause().getMessage());
            CompletionException call = assertThrows(CompletionException.class,
                    () -> client.call(CallRequest.builder(RpcMessages.call(1, new byte[4])).build()).join());
            assertInstanceOf(IllegalStateException.class, call.getCause());
            client.close();
            assertEquals(0, client.statistics().liveRegistrations());
            assertEquals(client.statistics().registrations(), client.statistics().deregistrations());
            assertEquals(0, fabric.registrationCount(), "nothing of the client is left in the fabric");
            assertEquals(0, fabric.queuePairCount());
        }
    }

    @Test
    void callBeforeTheAcceptFailsAtOnce() throws Exception {
        try (LoopbackFabric fabric = LoopbackFabric.deterministic(); ScriptedPeer peer = new ScriptedPeer(fabric, 4096, 4);
                RpcRdmaClient client = RpcRdmaClient.start(fabric.provider(), peer.address(), ClientConfig.defaults())) {
            CompletionException e = assertThrows(CompletionException.class,
                    () -> client.call(CallRequest.builder(RpcMessages.call(1, new byte[4])).build()).join());
            assertInstanceOf(IllegalStateException.class, e.getCause());
            assertFalse(client.isConnected());
            assertFalse(client.established().isDone());
        }
    }
}
