package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanAttributeInfo;
import javax.management.StandardMBean;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.server.HostServerStatistics;

/** The host server's counters in JMX, as jconsole reads them: live at each get. */
class HostServerMXBeanTest {

    @Test
    void everyCounterIsALiveReadOnlyAttribute() throws Exception {
        AtomicLong malformed = new AtomicLong(4);
        HostServerStatistics host = new HostServerStatistics() {
            @Override public long dispatchedCalls() { return 10; }
            @Override public long failedCalls() { return 3; }
            @Override public long programErrorCalls() { return 1; }
            @Override public long malformedMessages() { return malformed.get(); }
            @Override public long callsRefusedOverConnectionBound() { return 2; }
            @Override public long workerWakeups() { return 6; }
            @Override public long callsWithKeptCredential() { return 8; }
        };
        StandardMBean bean = new StandardMBean(new HostServerCounters(host), HostServerMXBean.class, true);
        assertEquals(10L, bean.getAttribute("DispatchedCalls"));
        assertEquals(3L, bean.getAttribute("FailedCalls"));
        assertEquals(1L, bean.getAttribute("ProgramErrorCalls"));
        assertEquals(2L, bean.getAttribute("CallsRefusedOverConnectionBound"));
        assertEquals(4L, bean.getAttribute("MalformedMessages"));
        assertEquals(6L, bean.getAttribute("WorkerWakeups"));
        assertEquals(8L, bean.getAttribute("CallsWithKeptCredential"));
        malformed.set(9);
        assertEquals(9L, bean.getAttribute("MalformedMessages"), "read at each get");
        assertEquals(7, bean.getMBeanInfo().getAttributes().length);
        assertEquals(0, Arrays.stream(bean.getMBeanInfo().getAttributes()).filter(MBeanAttributeInfo::isWritable).count());
        assertEquals("org.rpcrdma4j:type=HostServer", RdmaMBeansComponent.HOST_SERVER_OBJECT_NAME);
    }
}
