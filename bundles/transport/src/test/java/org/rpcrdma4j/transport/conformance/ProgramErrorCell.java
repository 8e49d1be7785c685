package org.rpcrdma4j.transport.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.testing.rawpeer.RpcCallHeader;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.CrewThreads;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * ProgramErrorCell - one row of the fault matrix's program failures (issue #31, D3): a program
 * that throws an {@link Error} on the thread that runs its call, a completion-loop crew thread
 * (leader/followers: the call runs on the thread that received it) or a worker. The whole
 * server runs as in production: the host's workers, the hosted RDMA transport with its loop's
 * own threads, on a threaded loopback fabric; the client is a {@link RawPeer}.
 *
 * <p>What the row checks: every failing call is answered SYSTEM_ERR; the next call on the same
 * connection is answered; the failing call is repeated more often than the connection has
 * receive contexts (so a context, a credit or a hold leaked per call would starve it); the
 * thread that ran each failure is still alive, and the loop's crew is whole; nothing is left in
 * flight, so stopping the transport does not wait its grace period; and with the client gone
 * and the transport stopped, the fabric's registrations, queue pairs and completion queues are
 * back to the baseline measured before the transport started.
 */
final class ProgramErrorCell {
    static final int PROGRAM = 0x2000_0431;
    static final int VERSION = 1;
    static final int PROC_NULL = 0;
    static final int PROC_FAIL = 1;
    /** RDMA_MSG header with empty chunk lists: xid, vers, credits, proc and three list words. */
    private static final int RDMA_MSG_HEADER_BYTES = Xdr.wordsToBytes(RpcRdma.MIN_MSG_HEADER_WORDS);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** The Error a program throws. */
    enum Failure {
        STACK_OVERFLOW, ASSERTION, OUT_OF_MEMORY, LINKAGE;

        void raise() {
            switch (this) {
                case STACK_OVERFLOW:
                    recurse(0); // a real one, thrown deep in the call's own stack
                    break;
                case ASSERTION:
                    throw new AssertionError("program invariant broken on purpose");
                case OUT_OF_MEMORY:
                    throw new OutOfMemoryError("Java heap space (on purpose)");
                default:
                    throw new NoClassDefFoundError("org/example/RemovedWithItsBundle");
            }
        }

        private static int recurse(int depth) {
            return recurse(depth + 1) + 1;
        }
    }

    /** Which thread runs the call. */
    enum CallPath {
        /** loopRunsCalls, an idle loop: the completion-loop thread that received the call runs it. */
        COMPLETION_LOOP,
        /** loopRunsCalls off: every call goes to the host's workers. */
        WORKER
    }

    /** NULL, and a procedure that throws the row's Error, recording the thread it ran on. */
    static final class FailingProgram implements RpcDispatchable {
        final Failure failure;
        final List<Thread> failedOn = new CopyOnWriteArrayList<>();

        FailingProgram(Failure failure) {
            this.failure = failure;
        }

        @Override
        public void dispatchOncRpcCall(RpcCall call) throws java.io.IOException {
            if (call.getProcedure() == PROC_FAIL) {
                failedOn.add(Thread.currentThread());
                failure.raise();
            }
            call.retrieveCall(XdrVoid.XDR_VOID);
            call.reply(XdrVoid.XDR_VOID);
        }
    }

    private ProgramErrorCell() {
    }

    static void run(RegistrationStrategy strategy, Failure failure, CallPath path) throws Exception {
        LoopbackFabric fabric = LoopbackFabric.threaded();
        HostServer host = new HostServer(2);
        RawPeer client = null;
        try {
            int registrations = fabric.registrationCount();
            int queuePairs = fabric.queuePairCount();
            int completionQueues = fabric.completionQueueCount();
            FailingProgram program = new FailingProgram(failure);
            host.addProgram(new OncRpcProgram(PROGRAM, VERSION), program);
            TransportConfig config = TransportConfig.builder().completionLoops(1).credits(8)
                    .loopRunsCalls(path == CallPath.COMPLETION_LOOP).build();
            RdmaHostedTransport rdma = RdmaHostedTransport.builder(fabric.provider())
                    .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).config(config).build();
            rdma.addStrategy(strategy);
            host.addTransport(rdma);
            int port = rdma.localAddress().getPort();
            client = RawPeer.open(fabric.provider(), rdma.localAddress(), TransportHarness.CLIENT_SHAPE,
                    new ConnectionPrivateData(4096, 4096, false));
            client.awaitEstablished(TIMEOUT);

            int xid = 0x1000;
            assertEquals(RpcMessage.SUCCESS, acceptStatus(call(client, xid++, PROC_NULL)), "NULL before any failure");
            // More failing calls than the connection has receive contexts: a leak per call starves it.
            int failures = config.receiveContexts() + 2;
            for (int i = 0; i < failures; i++) {
                if (path == CallPath.COMPLETION_LOOP) {
                    assertTrue(CrewThreads.awaitAsleep(port, 0, TIMEOUT), "the loop never slept: " + CrewThreads.describe(port, 0));
                }
                int x = xid++;
                byte[] reply = call(client, x, PROC_FAIL);
                assertTrue(reply != null, () -> "failing call " + x + " (" + failure + ", " + path + ") got no reply; "
                        + "in flight " + rdma.callsInFlight() + ", counters " + rdma.statistics() + ", crew "
                        + CrewThreads.describe(port, 0));
                assertEquals(RpcMessage.SYSTEM_ERR, acceptStatus(reply), "answered SYSTEM_ERR");
                Thread ranOn = program.failedOn.get(program.failedOn.size() - 1);
                if (path == CallPath.COMPLETION_LOOP) {
                    assertTrue(ranOn.getName().startsWith("rpcrdma4j-rdma-" + port + "-loop-0-"),
                            () -> "the call ran on the loop's thread, not " + ranOn.getName());
                } else {
                    assertTrue(ranOn.getName().startsWith("rpcrdma4j-worker-"), () -> "on a worker, not " + ranOn.getName());
                }
                int next = xid++;
                byte[] answered = call(client, next, PROC_NULL);
                assertTrue(answered != null, () -> "the next call on the connection after " + failure + " got no reply");
                assertEquals(RpcMessage.SUCCESS, acceptStatus(answered), "the next call is answered SUCCESS");
            }
            assertEquals(failures, program.failedOn.size(), "every failing call reached the program");
            for (Thread t : program.failedOn) {
                assertTrue(t.isAlive(), () -> t.getName() + " ended after the program's " + failure);
            }
            if (path == CallPath.COMPLETION_LOOP) {
                assertEquals(2, CrewThreads.threads(port, 0).size(), () -> "the loop's crew is whole: " + CrewThreads.describe(port, 0));
            }
            assertEquals(failures, host.dispatcher().programErrorCalls(), "each Error counted");
            assertEquals(0, rdma.statistics().get(Counter.HANDLER_ERRORS), "nothing escaped to the loop");
            assertEquals(0, rdma.statistics().get(Counter.CONNECTIONS_CLOSED), "the connection stayed");
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (rdma.callsInFlight() > 0 && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            assertEquals(0, rdma.callsInFlight(), "no call left in flight (what the stop would wait for)");

            client.close();
            client = null;
            long stopping = System.nanoTime();
            host.removeTransport(rdma);
            long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopping);
            assertTrue(rdma.isStopped(), "the loop's threads and the acceptor ended");
            assertTrue(stopMillis < TimeUnit.SECONDS.toMillis(RdmaHostedTransport.STOP_GRACE_SECONDS),
                    () -> "the stop waited its grace period (" + stopMillis + " ms)");
            assertEquals(registrations, fabric.registrationCount(), "the fabric's registrations back to the baseline");
            assertEquals(queuePairs, fabric.queuePairCount(), "queue pairs back to the baseline");
            assertEquals(completionQueues, fabric.completionQueueCount(), "completion queues back to the baseline");
        } finally {
            try {
                if (client != null) {
                    client.close();
                }
                host.close();
            } finally {
                fabric.close();
            }
        }
    }

    /** @return the RPC reply (after the RPC-over-RDMA header) to one call, or null when none came in time */
    private static byte[] call(RawPeer client, int xid, int procedure) throws Exception {
        CallBuilder.msg(xid).credits(8).inline(RpcCallHeader.call(xid, PROGRAM, VERSION, procedure, new byte[0])).send(client, 0);
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (client.poll() == 0) {
                Thread.sleep(1);
            }
            for (byte[] m : client.takeReplies()) {
                ByteBuffer b = ByteBuffer.wrap(m);
                assertEquals(xid, b.getInt(RpcRdma.XID_OFFSET), "the reply's xid");
                assertEquals(RpcRdma.RDMA_MSG, b.getInt(RpcRdma.PROC_OFFSET), "an RDMA_MSG reply");
                byte[] reply = new byte[m.length - RDMA_MSG_HEADER_BYTES];
                b.get(RDMA_MSG_HEADER_BYTES, reply);
                return reply;
            }
        }
        return null;
    }

    /** @return the accept status of an accepted RPC reply with an AUTH_NONE verifier */
    private static int acceptStatus(byte[] reply) {
        ByteBuffer b = ByteBuffer.wrap(reply);
        assertEquals(RpcMessage.REPLY, b.getInt(RpcMessage.MSG_TYPE_OFFSET), "an RPC REPLY");
        assertEquals(RpcMessage.MSG_ACCEPTED, b.getInt(RpcMessage.REPLY_STAT_OFFSET), "MSG_ACCEPTED");
        int at = RpcMessage.acceptStatOffset(b);
        assertEquals(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES - Xdr.UNIT_BYTES, at, "an AUTH_NONE verifier");
        return b.getInt(at);
    }
}
