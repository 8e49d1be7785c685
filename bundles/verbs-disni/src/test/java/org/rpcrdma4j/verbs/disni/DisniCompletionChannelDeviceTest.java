package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ListeningEndpoint;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.ConnectedPair;
import org.rpcrdma4j.verbs.conformance.Harness;
import org.rpcrdma4j.verbs.conformance.SeenEvent;

/**
 * The DiSNI completion channel and Send With Invalidate on a real or soft RDMA device (the lab runs
 * it on rxe): completion queues of both ends of a connection live on one channel, and one await
 * reports the armed ones that received completions. Skipped, naming why, where libdisni is not
 * loadable or no RDMA device with an IPv4 address exists. Waits are bounded only to fail instead
 * of hanging.
 */
@ExtendWith(RequiresRdmaDevice.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DisniCompletionChannelDeviceTest {
    private static final long BOUND_NANOS = Harness.BOUND_NANOS;

    private DisniProvider provider;
    private InetSocketAddress listenAddress;
    private CompletionChannel channel;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        provider = new DisniProvider();
        List<VerbsDevice> devices = provider.devices();
        String configured = System.getProperty("rpcrdma4j.disni.address");
        InetAddress address = configured != null ? InetAddress.getByName(configured)
                : devices.isEmpty() ? null : provider.addressOf(devices.get(0));
        assumeTrue(address != null, "no RDMA device with an IPv4 address (DiSNI 2.1 speaks IPv4 only)");
        listenAddress = new InetSocketAddress(address, 0);
        channel = provider.openCompletionChannel();
    }

    @AfterEach
    void close() throws Exception {
        try {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                toClose.get(i).close();
            }
            if (channel != null) {
                channel.close();
            }
        } finally {
            provider.close();
        }
    }

    @Test
    void oneAwaitReportsEveryArmedQueueThatReceivedACompletionOnceAndNoUnarmedOne() throws Exception {
        Link link = connect();
        MemoryRegion clientBuffer = link.client.register(64, Access.LOCAL_WRITE);
        MemoryRegion serverBuffer = link.server.register(64, Access.LOCAL_WRITE);
        link.server.queuePair.postReceive(receive(2, serverBuffer));
        link.client.queuePair.postReceive(receive(3, clientBuffer));
        link.server.receiveQueue.requestNotification();
        link.client.sendQueue.requestNotification();
        link.client.receiveQueue.requestNotification();
        // the server's send queue stays unarmed: its completion MUST NOT fire it
        CompletionQueue[] fired = new CompletionQueue[8];
        assertEquals(0, channel.await(fired, 0, TimeUnit.SECONDS), "nothing completed yet");

        link.client.queuePair.postSend(send(SendOpcode.SEND, 10, clientBuffer));
        link.server.queuePair.postSend(send(SendOpcode.SEND, 11, serverBuffer));
        Set<CompletionQueue> seen = awaitFired(fired, Set.of(link.server.receiveQueue, link.client.sendQueue, link.client.receiveQueue));
        assertFalse(seen.contains(link.server.sendQueue), "an unarmed queue never fires");
        assertEquals(1, poll(link.server.sendQueue), "though it holds the SEND's completion");
        assertEquals(0, channel.await(fired, 0, TimeUnit.SECONDS), "each notification is consumed once");
    }

    @Test
    void aFullFiredArrayLeavesTheOtherQueuesPendingForTheNextAwait() throws Exception {
        Link link = connect();
        MemoryRegion clientBuffer = link.client.register(64, Access.LOCAL_WRITE);
        MemoryRegion serverBuffer = link.server.register(64, Access.LOCAL_WRITE);
        link.server.queuePair.postReceive(receive(1, serverBuffer));
        link.server.receiveQueue.requestNotification();
        link.client.sendQueue.requestNotification();
        link.client.queuePair.postSend(send(SendOpcode.SEND, 2, clientBuffer));
        completions(link.server.receiveQueue, 1); // both completed: both events are in the channel now
        completions(link.client.sendQueue, 1);
        CompletionQueue[] one = new CompletionQueue[1];
        Set<CompletionQueue> seen = new HashSet<>();
        long deadline = System.nanoTime() + BOUND_NANOS;
        while (seen.size() < 2) {
            int n = channel.await(one, 1, TimeUnit.SECONDS);
            assertTrue(n <= 1);
            if (n == 1) {
                assertTrue(seen.add(one[0]), "reported twice: " + one[0]);
            }
            if (System.nanoTime() - deadline > 0) {
                fail("only " + seen + " fired");
            }
        }
        assertEquals(Set.of(link.server.receiveQueue, link.client.sendQueue), seen);
    }

    @Test
    void theChannelRefusesToCloseWhileAQueueOfItIsOpenAndItsQueuesDoNotWaitAlone() throws Exception {
        VerbsDevice device = provider.devices().get(0);
        CompletionQueue queue = channel.createCompletionQueue(device, 16);
        assertSame(device, queue.device());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> queue.awaitNotification(1, TimeUnit.MILLISECONDS)).errno());
        assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, channel::close).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> channel.createCompletionQueue(device, 0)).errno());
        queue.close();
        CompletionQueue reused = channel.createCompletionQueue(device, 16); // its cookie slot is free again
        reused.close();
        channel.close();
        assertEquals(Errno.EBADF, assertThrows(VerbsException.class, () -> channel.createCompletionQueue(device, 16)).errno());
        channel.close();
    }

    @Test
    void aWakeupEndsAnAwaitWhileQueuesAreArmedButIdle() throws Exception {
        Link link = connect();
        link.server.receiveQueue.requestNotification();
        link.client.sendQueue.requestNotification();
        channel.wakeup();
        CompletionQueue[] fired = new CompletionQueue[4];
        assertEquals(0, channel.await(fired, 1, TimeUnit.DAYS));
        assertEquals(0, channel.await(fired, 0, TimeUnit.SECONDS));
    }

    /**
     * Send With Invalidate reaches the wire as such: a user-space receiver has no key a peer may
     * invalidate (only fast-registered regions and memory windows are), so naming a key that no
     * region has fails the receive, where a plain SEND of the same bytes succeeds. The positive
     * case (the receiver's key invalidated and reported) needs a kernel receiver: the lab's NFS
     * client over rxe.
     */
    @Test
    void sendWithInvalidateIsPostedAsSuchWhereTheDeviceSupportsIt() throws Exception {
        VerbsDevice device = provider.devices().get(0);
        assumeTrue(device.capabilities().remoteInvalidation(), device + " has no IBV_DEVICE_MEM_MGT_EXTENSIONS");
        Link link = connect();
        MemoryRegion source = link.client.register(64, 0);
        MemoryRegion sink = link.server.register(128, Access.LOCAL_WRITE);
        link.server.queuePair.postReceive(receive(1, sink));
        link.client.queuePair.postSend(send(SendOpcode.SEND, 2, source));
        WorkCompletion plain = completions(link.server.receiveQueue, 1)[0];
        assertEquals(CompletionStatus.SUCCESS, plain.status());
        assertFalse(plain.hasInvalidatedKey());

        link.server.queuePair.postReceive(receive(3, sink));
        int unknownKey = sink.rkey() ^ 0x5a5a5a00;
        link.client.queuePair.postSend(send(SendOpcode.SEND_WITH_INV, 4, source).invalidateKey(unknownKey));
        WorkCompletion invalidating = completions(link.server.receiveQueue, 1)[0];
        assertNotEquals(CompletionStatus.SUCCESS, invalidating.status(),
                "a SEND_WITH_INV of a key the receiver does not have must not land as a plain SEND");
    }

    // ---- a connection whose completion queues live on the channel ----

    private Link connect() throws Exception {
        ConnectionManager serverManager = own(provider.openConnectionManager());
        ConnectionManager clientManager = own(provider.openConnectionManager());
        Harness.Events serverEvents = new Harness.Events(serverManager);
        Harness.Events clientEvents = new Harness.Events(clientManager);
        ListeningEndpoint listener = own(serverManager.listen(listenAddress, 4));
        Link link = new Link();
        link.client = own(new End(clientManager.createConnection(null, listener.localAddress(), Duration.ofSeconds(5))));
        link.client.open(channel);
        link.client.connection.connect(ByteBuffer.wrap(ConnectedPair.CONNECT_DATA));
        SeenEvent request = serverEvents.await(ConnectionEventType.CONNECT_REQUEST);
        link.server = own(new End(request.connection()));
        link.server.open(channel);
        link.server.connection.accept(ByteBuffer.wrap(ConnectedPair.ACCEPT_DATA));
        clientEvents.await(ConnectionEventType.ESTABLISHED);
        serverEvents.await(ConnectionEventType.ESTABLISHED);
        return link;
    }

    private <T extends AutoCloseable> T own(T resource) {
        toClose.add(resource);
        return resource;
    }

    private Set<CompletionQueue> awaitFired(CompletionQueue[] fired, Set<CompletionQueue> expected) throws Exception {
        Set<CompletionQueue> seen = new HashSet<>();
        long deadline = System.nanoTime() + BOUND_NANOS;
        while (!seen.containsAll(expected)) {
            int n = channel.await(fired, 1, TimeUnit.SECONDS);
            Set<CompletionQueue> thisAwait = new HashSet<>();
            for (int i = 0; i < n; i++) {
                assertTrue(thisAwait.add(fired[i]), "one await reported " + fired[i] + " twice");
                assertTrue(seen.add(fired[i]), fired[i] + " fired again without being re-armed");
            }
            if (System.nanoTime() - deadline > 0) {
                fail("fired " + seen + ", expected " + expected);
            }
        }
        assertEquals(expected, seen);
        return seen;
    }

    private static int poll(CompletionQueue queue) throws VerbsException {
        WorkCompletion[] completions = {new WorkCompletion(), new WorkCompletion()};
        return queue.poll(completions, completions.length);
    }

    private static WorkCompletion[] completions(CompletionQueue queue, int n) throws VerbsException {
        WorkCompletion[] out = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            out[i] = new WorkCompletion();
        }
        int got = 0;
        long deadline = System.nanoTime() + BOUND_NANOS;
        while (got < n) {
            WorkCompletion[] window = java.util.Arrays.copyOfRange(out, got, n);
            got += queue.poll(window, window.length);
            if (got < n && System.nanoTime() - deadline > 0) {
                fail("expected " + n + " completions, got " + got);
            }
        }
        return out;
    }

    private static ReceiveWorkRequest receive(long id, MemoryRegion region) {
        ReceiveWorkRequest wr = new ReceiveWorkRequest(1).id(id).sgeCount(1);
        wr.sge(0).set(region, 0, region.length());
        return wr;
    }

    private static SendWorkRequest send(SendOpcode opcode, long id, MemoryRegion region) {
        return new SendWorkRequest(1).reset(opcode, id, SendWorkRequest.SIGNALED).addSge(region, 0, 16);
    }

    private static final class Link {
        End client;
        End server;
    }

    /** One end: a domain, a send and a receive queue on the channel, the queue pair, regions. */
    private static final class End implements AutoCloseable {
        final Connection connection;
        final List<MemoryRegion> regions = new ArrayList<>();
        ProtectionDomain domain;
        CompletionQueue sendQueue;
        CompletionQueue receiveQueue;
        QueuePair queuePair;

        End(Connection connection) {
            this.connection = connection;
        }

        void open(CompletionChannel channel) throws VerbsException {
            domain = connection.device().allocateProtectionDomain();
            sendQueue = channel.createCompletionQueue(connection.device(), 64);
            receiveQueue = channel.createCompletionQueue(connection.device(), 64);
            queuePair = connection.createQueuePair(domain, QueuePairAttributes.builder(sendQueue, receiveQueue).sendQueueDepth(16)
                    .receiveQueueDepth(16).maxSendSge(1).maxReceiveSge(1).build());
        }

        MemoryRegion register(int size, int access) throws VerbsException {
            MemoryRegion region = domain.registerMemory(ByteBuffer.allocateDirect(size), access);
            regions.add(region);
            return region;
        }

        @Override
        public void close() throws Exception {
            connection.close();
            for (MemoryRegion region : regions) {
                region.deregister();
            }
            if (sendQueue != null) {
                sendQueue.close();
            }
            if (receiveQueue != null) {
                receiveQueue.close();
            }
            if (domain != null) {
                domain.close();
            }
        }
    }
}
