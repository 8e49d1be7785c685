package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.rpcrdma4j.client.InlineCallTest.array;
import static org.rpcrdma4j.client.ReplyShapesTest.cause;

import java.nio.ByteBuffer;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/** Remote invalidation (RFC 8797 flag): fast-registered chunks whose keys the server may invalidate. */
class RemoteInvalidationTest {
    private static final ClientConfig CONFIG = ClientConfig.builder().maxCredits(8).remoteInvalidation(true).build();

    @Test
    void serverInvalidatesTheWriteChunkKeyWithItsReply() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            assertEquals(0x01010303, ByteBuffer.wrap(h.peer.clientPrivateData()).getInt(4), "flag set: the device fast-registers");
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(0x91, new byte[4])).writeChunk(4096).build());
            ByteBuffer sent = h.takeOne();
            int handle = sent.getInt(28);
            long offset = sent.getLong(36);
            byte[] data = RpcMessages.pattern(2000, 3);
            assertEquals(CompletionStatus.SUCCESS, h.peer.write(handle, offset, data), "the REG_MR ran before the SEND");

            h.peer.sendWithInvalidate(Replies.msgWithWriteChunk(0x91, 8, handle, 2000, offset, RpcMessages.reply(0x91, new byte[0])), 8,
                    handle);
            h.settle();
            RpcReply reply = f.join();
            assertEquals(OptionalInt.of(handle), reply.invalidatedKey());
            assertArrayEquals(data, array(reply.writeChunk(0)));
            assertEquals(2, h.client.statistics().liveRegistrations(), "the region is gone too");
        }
    }

    @Test
    void fastRegisteredReadChunksArePulledAndEndWithTheReply() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            byte[] data = RpcMessages.pattern(333, 4);
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(0x92, data)).readChunk(44, 333).build());
            ByteBuffer sent = h.takeOne();
            int handle = sent.getInt(24);
            long offset = sent.getLong(32);
            assertArrayEquals(data, h.peer.read(handle, 333, offset));
            h.reply(Replies.msg(0x92, 8, RpcMessages.reply(0x92, new byte[0])), 8);
            f.join();
            assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, h.peer.write(handle, offset, new byte[4]), "its key no longer works");
        }
    }

    @Test
    void tooManyChunksForFastRegistrationAreRefused() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            CallRequest.Builder b = CallRequest.builder(RpcMessages.call(0x93, new byte[4]));
            for (int i = 0; i <= PreparedCall.MAX_FAST_REGISTRATIONS; i++) {
                b.writeChunk(16);
            }
            assertInstanceOf(IllegalArgumentException.class, cause(h.call(b.build())));
            assertEquals(2, h.client.statistics().liveRegistrations());
        }
    }

    @Test
    void aRegistrationThatFailsMidwayReleasesTheOnesBefore() throws Exception {
        DeviceCapabilities smallFrmr = new DeviceCapabilities(TransportType.INFINIBAND, 16, 16, 16, 256, 16384, 65536, 16, 16, true, true, 4096);
        try (Harness h = Harness.connected(LoopbackFabric.builder().capabilities(smallFrmr).build(), CONFIG)) {
            CallRequest tooLarge = CallRequest.builder(RpcMessages.call(0x95, RpcMessages.pattern(100, 1))).readChunk(44, 100)
                    .writeChunk(1000).writeChunk(8192).build();
            VerbsException e = assertInstanceOf(VerbsException.class, cause(h.call(tooLarge)));
            assertEquals(Errno.EINVAL, e.errno());
            ClientStatistics stats = h.client.statistics();
            assertEquals(2, stats.liveRegistrations(), "the read chunk and the first write chunk were released again");
            assertEquals(4, stats.registrations(), "two slabs, then two chunks before the refusal");
            assertEquals(0, h.peer.takeMessages().size());
        }
    }

    @Test
    void withoutFastRegistrationTheFlagIsNotOffered() throws Exception {
        DeviceCapabilities noFrmr = new DeviceCapabilities(TransportType.ROCE, 16, 16, 16, 256, 16384, 65536, 16, 16, false, false, 0);
        LoopbackFabric fabric = LoopbackFabric.builder().capabilities(noFrmr).build();
        try (Harness h = Harness.connected(fabric, CONFIG)) {
            assertEquals(0x01000303, ByteBuffer.wrap(h.peer.clientPrivateData()).getInt(4), "no flag: plain keys cannot be invalidated");
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(0x94, new byte[4])).writeChunk(64).build());
            h.takeOne();
            h.reply(Replies.msg(0x94, 8, RpcMessages.reply(0x94, new byte[0])), 8);
            assertEquals(0x94, f.join().xid());
        }
    }
}
