package org.rpcrdma4j.itests.transport;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceRegistration;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaTransportControl;

/**
 * The active registration strategy switched lkey, frmr, lkey through Config Admin under a
 * concurrent load of calls with read chunks: the transport switches in place (same transport,
 * same connection), every call is answered byte-exact, and READs are counted under both names.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class StrategySwapIT extends TransportTestSupport {
    private static final int THREADS = 4;
    /** READs each phase must see under its strategy before the next switch. */
    private static final int READS_PER_PHASE = 200;

    @Test
    public void switchingStrategiesUnderLoadLosesNoCall() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        assertEquals("lkey", rdma.activeStrategy());
        ServiceRegistration<RpcDispatchable> program = EchoProgram.register(bundleContext);
        List<String> failures;
        try (RpcRdmaClient client = connect(rdma)) {
            ReadChunkLoad load = new ReadChunkLoad(client, THREADS, CALL_TIMEOUT);
            try {
                awaitMoreReads(rdma, "lkey", READS_PER_PHASE, load);
                switchTo(rdma, "frmr");
                awaitMoreReads(rdma, "frmr", READS_PER_PHASE, load);
                switchTo(rdma, "lkey");
                awaitMoreReads(rdma, "lkey", READS_PER_PHASE, load);
            } finally {
                failures = load.stop();
            }
            assertEquals("every call answered byte-exact", List.of(), failures);
            System.out.println("Strategy swap: " + load.answered() + " calls answered, READs by strategy "
                    + rdma.statistics().readsByStrategy());
            assertTrue(load.answered() >= 3 * READS_PER_PHASE);
        } finally {
            program.unregister();
        }
        assertTrue(reads(rdma, "lkey") >= 2 * READS_PER_PHASE);
        assertTrue(reads(rdma, "frmr") >= READS_PER_PHASE);
        assertEquals("switched in place: one connection throughout", 1,
                rdma.statistics().get(Counter.CONNECTIONS_ACCEPTED));
        assertEquals(0, rdma.statistics().get(Counter.READ_ERRORS));
    }

    private void switchTo(RdmaTransportControl rdma, String strategy) throws Exception {
        configureActiveStrategy(strategy);
        awaitCondition("the transport applies activeStrategy=" + strategy, () -> strategy.equals(rdma.activeStrategy()));
    }
}
