package org.rpcrdma4j.itests.transport;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.inject.Inject;
import org.apache.karaf.shell.api.console.SessionFactory;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceRegistration;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.itests.support.ShellCommands;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RdmaTransportControl;

/**
 * The RFC 8167 back channel in Karaf: a program registered as an OSGi {@code RpcDispatchable}
 * service calls its RDMA client back while it serves the client's call, the way nfs4j's
 * NFSv4.1 CREATE_SESSION pings the client with CB_NULL through {@code getPeerTransport()} before
 * it answers; the client's callback program (registered with the Java client) answers, the
 * program returns the callback's result, and {@code rpcrdma:connections -v} shows the back
 * channel and its counters.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class BackchannelIT extends TransportTestSupport {
    private static final int PROGRAM = 0x2000_0782;
    private static final int VERSION = 1;
    private static final int PROC_SESSION = 1;
    private static final int CB_PROGRAM = 0x4000_0782;
    private static final int CB_NULL = 0;
    private static final int CB_DOUBLE = 1;

    @Inject
    protected SessionFactory sessionFactory;

    @Override
    protected String[] bootFeatures() {
        return new String[] {"rpcrdma4j", "rpcrdma4j-client", "rpcrdma4j-shell"};
    }

    /** Like CREATE_SESSION: CB_NULL to the caller, then CB_DOUBLE(n), answering the callback's result. */
    private static final class PingBackProgram implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
            XdrInt n = new XdrInt();
            call.retrieveCall(n);
            RpcCall callback = new RpcCall(CB_PROGRAM, 1, new RpcAuthTypeNone(), call.getTransport().getPeerTransport());
            try {
                callback.call(CB_NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 10, TimeUnit.SECONDS);
                XdrInt doubled = new XdrInt();
                callback.call(CB_DOUBLE, n, doubled, 10, TimeUnit.SECONDS);
                call.reply(doubled);
            } catch (java.util.concurrent.TimeoutException e) {
                call.reply(new XdrInt(-1));
            }
        }
    }

    @Test
    public void aProgramServiceCallsItsRdmaClientBack() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("rpc.program", PROGRAM);
        properties.put("rpc.version", VERSION);
        ServiceRegistration<RpcDispatchable> registration =
                bundleContext.registerService(RpcDispatchable.class, new PingBackProgram(), properties);
        List<Integer> callbackProcedures = new ArrayList<>();
        ClientConfig config = ClientConfig.builder().progressThread(true).backchannel(call -> {
            int procedure = call.getInt(20);
            synchronized (callbackProcedures) {
                callbackProcedures.add(procedure);
            }
            return procedure == CB_NULL ? reply(call, null) : reply(call, 2 * call.getInt(40));
        }, 2).build();
        try (RpcRdmaClient client = RpcRdmaClient.connect(loopbackProvider(), rdma.localAddress(), config)) {
            for (int i = 1; i <= 3; i++) {
                RpcReply reply = client.call(CallRequest.builder(sessionCall(0x7700 + i, 100 + i)).build(), CALL_TIMEOUT);
                ByteBuffer body = reply.body();
                assertEquals("accepted, SUCCESS", 0, body.getInt(body.position() + 20));
                assertEquals("the callback's result, returned by the program", 2 * (100 + i), body.getInt(body.position() + 24));
            }
            synchronized (callbackProcedures) {
                assertEquals(List.of(CB_NULL, CB_DOUBLE, CB_NULL, CB_DOUBLE, CB_NULL, CB_DOUBLE), callbackProcedures);
            }
            assertEquals(6, client.statistics().backwardReplies());
            RdmaConnection connection = rdma.connections().stream().filter(RdmaConnection::isOpen).findFirst().orElseThrow();
            assertEquals(6, connection.statistics().get(Counter.BACKWARD_CALLS));
            assertEquals(6, connection.statistics().get(Counter.BACKWARD_REPLIES));
            String out = new ShellCommands(sessionFactory).execute("rpcrdma:connections -v", Duration.ofSeconds(60));
            assertTrue(out, out.contains("back channel: credits 2, outstanding 0, waiting 0; calls sent 6, replies received 6, "
                    + "timeouts 0"));
            assertTrue(out, out.matches("(?s).*BACKWARD_CALLS\\s*\\|\\s*6.*"));
        } finally {
            registration.unregister();
        }
    }

    /** @return a call of {@link #PROC_SESSION} with AUTH_NONE and one int argument */
    private static ByteBuffer sessionCall(int xid, int n) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Integer.BYTES);
        return RpcMessage.putCallHeader(b, xid, PROGRAM, VERSION, PROC_SESSION).putInt(n).flip();
    }

    /** @return an accepted, successful reply to {@code call} with void results, or one int */
    private static ByteBuffer reply(ByteBuffer call, Integer value) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + (value == null ? 0 : Integer.BYTES));
        RpcMessage.putAcceptedReplyHeader(b, call.getInt(RpcMessage.XID_OFFSET), RpcMessage.SUCCESS);
        if (value != null) {
            b.putInt(value);
        }
        return b.flip();
    }
}
