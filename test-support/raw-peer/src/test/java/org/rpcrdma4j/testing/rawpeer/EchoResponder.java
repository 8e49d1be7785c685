package org.rpcrdma4j.testing.rawpeer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionOpcode;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.ListeningEndpoint;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * EchoResponder - the far end of a {@link RawPeer} in its tests, written with the verbs contract
 * alone: it accepts one connection (answering with RFC 8797 private data), records every message
 * it receives and SENDs each one back byte for byte.
 *
 * <p>Threading: one thread drives {@link #doWork()}. Ownership: the test closes it.
 */
final class EchoResponder implements AutoCloseable {
    static final int SLOT = 4096;
    private static final int SLOTS = 8;
    /** What the responder's accept carries. */
    static final ConnectionPrivateData ACCEPTED = new ConnectionPrivateData(SLOT, 2 * SLOT, false);

    private final ConnectionManager cm;
    private final ListeningEndpoint listener;
    private final List<byte[]> received = new ArrayList<>();
    private final WorkCompletion[] completions = new WorkCompletion[2 * SLOTS];
    private Connection connection;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion receiveRegion;
    private MemoryRegion sendRegion;
    private int nextSendSlot;

    EchoResponder(VerbsProvider provider) throws VerbsException {
        cm = provider.openConnectionManager();
        listener = cm.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
    }

    InetSocketAddress address() {
        return listener.localAddress();
    }

    /** @return the messages received so far, in order */
    List<byte[]> received() {
        return received;
    }

    /** @return events and completions handled */
    int doWork() throws VerbsException {
        VerbsException[] failed = new VerbsException[1];
        int work = cm.pollEvents(event -> {
            if (event.type() == ConnectionEventType.CONNECT_REQUEST) {
                try {
                    accept(event.connection());
                } catch (VerbsException e) {
                    failed[0] = e;
                }
            }
        }, 4);
        if (failed[0] != null) {
            throw failed[0];
        }
        if (cq == null) {
            return work;
        }
        int n = cq.poll(completions, completions.length);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            if (wc.isSuccess() && wc.opcode() == CompletionOpcode.RECV) {
                echo((int) wc.id(), wc.byteCount());
            }
        }
        return work + n;
    }

    private void accept(Connection request) throws VerbsException {
        connection = request;
        pd = request.device().allocateProtectionDomain();
        cq = request.device().createCompletionQueue(completions.length);
        receiveRegion = pd.registerMemory(ByteBuffer.allocateDirect(SLOTS * SLOT), Access.LOCAL_WRITE);
        sendRegion = pd.registerMemory(ByteBuffer.allocateDirect(SLOTS * SLOT), 0);
        qp = request.createQueuePair(pd, QueuePairAttributes.builder(cq, cq).sendQueueDepth(SLOTS)
                .receiveQueueDepth(SLOTS).build());
        for (int i = 0; i < SLOTS; i++) {
            qp.postReceive(new ReceiveWorkRequest(1).id(i).buffer(receiveRegion, i * SLOT, SLOT));
        }
        ByteBuffer data = ByteBuffer.allocate(8);
        ACCEPTED.encode(data, 0);
        request.accept(data);
    }

    private void echo(int slot, int length) throws VerbsException {
        byte[] message = new byte[length];
        receiveRegion.buffer().get(slot * SLOT, message);
        received.add(message);
        qp.postReceive(new ReceiveWorkRequest(1).id(slot).buffer(receiveRegion, slot * SLOT, SLOT));
        int at = (nextSendSlot++ % SLOTS) * SLOT;
        sendRegion.buffer().put(at, message);
        qp.postSend(new SendWorkRequest(1).reset(SendOpcode.SEND, SLOTS + slot, SendWorkRequest.SIGNALED)
                .addSge(sendRegion, at, length));
    }

    @Override
    public void close() throws VerbsException {
        if (connection != null) {
            connection.close();
            cq.close();
            receiveRegion.deregister();
            sendRegion.deregister();
            pd.close();
        }
        listener.close();
        cm.close();
    }
}
