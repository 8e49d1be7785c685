package org.rpcrdma4j.itests.transport;

import static org.junit.Assert.assertEquals;

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
 * The active strategy's bundle going away under load: with frmr active (through Config Admin)
 * and calls with read chunks flowing, stopping the registration-frmr bundle makes lkey active at
 * once and no call fails; starting it again registers frmr again, and since the configuration
 * still names it, the transport makes it active again and READs are counted under it.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class FrmrFallbackIT extends TransportTestSupport {
    private static final int THREADS = 4;
    private static final int READS_PER_PHASE = 200;

    @Test
    public void frmrGoingAwayFallsBackToLkeyWithoutAFailedCall() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        configureActiveStrategy("frmr");
        awaitCondition("frmr active through Config Admin", () -> "frmr".equals(rdma.activeStrategy()));
        ServiceRegistration<RpcDispatchable> program = EchoProgram.register(bundleContext);
        List<String> failures;
        try (RpcRdmaClient client = connect(rdma)) {
            ReadChunkLoad load = new ReadChunkLoad(client, THREADS, CALL_TIMEOUT);
            try {
                awaitMoreReads(rdma, "frmr", READS_PER_PHASE, load);

                bundle(FRMR_BUNDLE).stop();
                // DS unbinds the strategy while the bundle stops: the fallback is in place when stop() returns.
                assertEquals("lkey", rdma.activeStrategy());
                assertEquals(List.of("lkey"), rdma.strategies());
                awaitMoreReads(rdma, "lkey", READS_PER_PHASE, load);

                bundle(FRMR_BUNDLE).start();
                awaitCondition("frmr registered again", () -> rdma.strategies().contains("frmr"));
                awaitCondition("frmr, still configured, active again", () -> "frmr".equals(rdma.activeStrategy()));
                awaitMoreReads(rdma, "frmr", READS_PER_PHASE, load);
            } finally {
                failures = load.stop();
            }
            assertEquals("every call answered byte-exact", List.of(), failures);
            System.out.println("frmr fallback: " + load.answered() + " calls answered, READs by strategy "
                    + rdma.statistics().readsByStrategy());
        } finally {
            program.unregister();
        }
        assertEquals("calls never met a transport without a strategy", 0, rdma.statistics().get(Counter.NO_STRATEGY));
        assertEquals(0, rdma.statistics().get(Counter.READ_ERRORS));
    }
}
