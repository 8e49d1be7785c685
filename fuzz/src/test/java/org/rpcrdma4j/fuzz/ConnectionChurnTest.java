package org.rpcrdma4j.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * ConnectionChurnTest - many connect/disconnect cycles on the loopback provider, half of them
 * abrupt, leave nothing behind: afterwards the transport's pools, the fabric's registrations and
 * queue pairs, the live threads and the heap (after GC) are where they were after a warm-up.
 *
 * <p>Each cycle connects a peer (every tenth sends a call, which is answered) and ends it one of
 * four ways, in turn: an orderly disconnect; the peer destroys its queue pair and connection
 * without a disconnect; the link drops (both sides see their sends fail and DISCONNECTED); the
 * peer vanishes between its connect request and the server's accept.
 *
 * <p>{@code -Drpcrdma4j.churn.cycles=N} sets the number of cycles (10,000 by default).
 */
class ConnectionChurnTest {
    private static final int CYCLES = Integer.getInteger("rpcrdma4j.churn.cycles", 10_000);
    private static final int WARM_UP = 400;
    /** Heap growth tolerated after GC: far below what one leaked byte array per cycle would add. */
    private static final long HEAP_SLACK = 4L << 20;

    @Test
    void connectAndDisconnectTenThousandTimesLeavesNothingBehind() throws Exception {
        try (FuzzBed bed = new FuzzBed(LoopbackFabric.deterministic(), ReceivePathFuzzTest.CONFIG)) {
            runCycles(bed, 0, WARM_UP);
            Snapshot before = Snapshot.take(bed);
            runCycles(bed, WARM_UP, CYCLES);
            Snapshot after = Snapshot.take(bed);
            System.out.printf("churn: %,d cycles; before %s; after %s; accepted %d, closed %d, failed %d, rejected %d%n",
                    CYCLES, before, after, bed.count(Counter.CONNECTIONS_ACCEPTED), bed.count(Counter.CONNECTIONS_CLOSED),
                    bed.count(Counter.CONNECTIONS_FAILED), bed.count(Counter.ACCEPT_FAILURES));

            assertEquals(before.usage, after.usage, "transport pools");
            // What stays registered is the loop's pools (registered once, on first use), the same before and after.
            assertEquals(new ResourceUsage(0, 0, 0, 0, 0, after.usage.sinkRegistrations(), 0, 0, 0, after.usage.registeredBytes()),
                    after.usage, "no connection, receive, send buffer, READ or sink left");
            assertEquals(before.registrations, after.registrations, "fabric registrations");
            assertEquals(before.queuePairs, after.queuePairs, "fabric queue pairs");
            assertEquals(before.threads, after.threads, "live threads");
            assertTrue(after.heap - before.heap < HEAP_SLACK, "heap after GC grew by " + (after.heap - before.heap) + " bytes");
            assertEquals(CYCLES / 10, bed.count(Counter.CALLS_DELIVERED), "every tenth cycle's call was delivered");
            assertTrue(bed.closeTransport(), "the transport closes: " + bed.usage());
            assertEquals(0, bed.fabric.registrationCount());
            assertEquals(0, bed.fabric.queuePairCount());
        }
    }

    private static void runCycles(FuzzBed bed, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            RawPeer p = RawPeer.open(bed.fabric.provider(), bed.transport.localAddress(), FuzzBed.PEER_SHAPE,
                    new org.rpcrdma4j.codec.ConnectionPrivateData(4096, 4096, false));
            bed.peers.add(p);
            int ending = i % 4;
            if (ending == 3) {
                p.close(); // vanishes before the server accepts its request
            } else {
                bed.settle();
                assertTrue(p.isEstablished(), "cycle " + i + " connects");
                if (i % 10 == 0) {
                    call(bed, p, i);
                }
                if (ending == 0) {
                    p.disconnect();
                    bed.settle();
                } else if (ending == 2) {
                    bed.fabric.faults().dropConnection(p.connection());
                    bed.settle();
                }
                p.close();
            }
            bed.settle();
            bed.peers.clear();
        }
    }

    private static void call(FuzzBed bed, RawPeer p, int xid) throws Exception {
        p.send(Messages.validCall(xid));
        bed.settle();
        assertEquals(1, bed.held.size(), "the call is delivered");
        ReceivedCall call = bed.held.remove(0);
        PendingReply reply = call.detachReply();
        call.release();
        reply.send(ByteBuffer.wrap(Messages.rpcReply(xid, 32)), -1);
        bed.settle();
        byte[] r = p.takeReplies().get(0);
        assertEquals(xid, ByteBuffer.wrap(r).getInt(0));
        assertEquals(RpcRdma.RDMA_MSG, ByteBuffer.wrap(r).getInt(12));
    }

    /** What the process and the fabric hold at one moment. */
    private record Snapshot(ResourceUsage usage, int registrations, int queuePairs, int threads, long heap) {
        static Snapshot take(FuzzBed bed) throws InterruptedException {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            long heap = Long.MAX_VALUE;
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(50);
                heap = Math.min(heap, memory.getHeapMemoryUsage().getUsed());
            }
            return new Snapshot(bed.usage(), bed.fabric.registrationCount(), bed.fabric.queuePairCount(),
                    ManagementFactory.getThreadMXBean().getThreadCount(), heap);
        }

        @Override
        public String toString() {
            return String.format("heap %,d B, threads %d, registrations %d, queue pairs %d, %s", heap, threads,
                    registrations, queuePairs, usage);
        }
    }
}
