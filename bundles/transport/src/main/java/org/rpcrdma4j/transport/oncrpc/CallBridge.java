package org.rpcrdma4j.transport.oncrpc;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.server.RpcCallDispatcher;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CallBridge - the oncrpc4j side of an RDMA transport: each received call becomes an oncrpc4j
 * {@code RpcCall} for the host's programs, and each reply goes back through the call's
 * {@link PendingReply}, with its DDP-eligible item located by the program's
 * {@link UpperLayerBinding}.
 *
 * <p>On the completion thread, per call: detach the reply, copy the body into an {@link Xdr} and
 * release the call at once (its receive buffer and read sinks go back before the program runs),
 * consult the {@link ReplyCache}, and hand the message to the {@link RpcCallDispatcher}, which
 * answers header errors itself and runs the program on a worker.
 *
 * <p>Threading: {@link #onCall} on the completion thread; {@link #sendReply} on any worker.
 */
final class CallBridge implements RpcCallHandler {
    private static final Logger LOG = LoggerFactory.getLogger(CallBridge.class);

    private final RpcCallDispatcher dispatcher;
    private final ReplyCache cache;
    private final List<UpperLayerBinding> bindings;
    private final ReplyQueue replyQueue;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder retransmitsAnswered = new LongAdder();
    private final LongAdder retransmitsDropped = new LongAdder();
    private volatile boolean refusing;

    CallBridge(RpcCallDispatcher dispatcher, ReplyCache cache, CopyOnWriteArrayList<UpperLayerBinding> bindings,
               ReplyQueue replyQueue) {
        this.dispatcher = dispatcher;
        this.cache = cache;
        this.bindings = bindings;
        this.replyQueue = replyQueue;
    }

    ReplyQueue replyQueue() {
        return replyQueue;
    }

    /** @return calls handed to programs whose reply has not been sent yet */
    int inFlight() {
        return inFlight.get();
    }

    long retransmitsAnswered() {
        return retransmitsAnswered.sum();
    }

    long retransmitsDropped() {
        return retransmitsDropped.sum();
    }

    /** refuseNewCalls() - the transport is stopping: calls from now on are dropped unanswered. */
    void refuseNewCalls() {
        refusing = true;
    }

    @Override
    public void onCall(ReceivedCall call) {
        PendingReply reply;
        byte[] body;
        try {
            reply = call.detachReply();
            body = new byte[call.bodyLength()];
            call.copyBodyTo(ByteBuffer.wrap(body));
        } finally {
            call.release();
        }
        // Counted before the check, so a stop that sees refusing and then zero in flight cannot miss this call.
        inFlight.incrementAndGet();
        if (refusing) {
            inFlight.decrementAndGet();
            LOG.debug("Dropping call xid 0x{} from {}: the RDMA transport is stopping", Integer.toHexString(reply.xid()),
                    reply.connection().remoteAddress());
            reply.abandon();
            return;
        }
        int[] target = RpcMessages.callTarget(body);
        ReplyCache.Key key = null;
        if (target != null && cache.isEnabled()) {
            key = ReplyCache.Key.of(reply.connection().remoteAddress().getAddress(), reply.xid(), body);
            ReplyCache.Entry[] found = new ReplyCache.Entry[1];
            switch (cache.begin(key, found)) {
                case IN_PROGRESS:
                    inFlight.decrementAndGet();
                    retransmitsDropped.increment();
                    reply.abandon();
                    return;
                case ANSWERED:
                    retransmitsAnswered.increment();
                    try {
                        reply.send(found[0].reply(), found[0].ddpItemOffset());
                    } finally {
                        inFlight.decrementAndGet();
                    }
                    return;
                default:
                    break;
            }
        }
        CallTransport transport = new CallTransport(this, reply, target != null ? target : new int[3], key);
        RpcCallDispatcher.Outcome outcome = dispatcher.receive(new Xdr(body), transport);
        switch (outcome) {
            case GARBAGE:
            case REPLY_DELIVERED:
            case REPLY_UNMATCHED:
                // Nothing answers these: the message was not a call we could read.
                finishWithoutReply(reply, key);
                break;
            default:
                break;
        }
    }

    private void finishWithoutReply(PendingReply reply, ReplyCache.Key key) {
        inFlight.decrementAndGet();
        if (key != null) {
            cache.forget(key);
        }
        reply.abandon();
    }

    /**
     * sendReply() - frame and send a program's reply: locate its DDP-eligible item when the client
     * offered a write chunk and the program has a binding, keep a copy in the reply cache, send.
     */
    void sendReply(PendingReply reply, ByteBuffer message, int program, int version, int procedure,
                   ReplyCache.Key key) {
        int ddpOffset = -1;
        if (reply.writeChunkCapacity() > 0) {
            ddpOffset = locateItem(message, program, version, procedure);
        }
        try {
            try {
                reply.send(message, ddpOffset);
            } catch (IllegalArgumentException e) {
                LOG.warn("The upper-layer binding of program {} version {} procedure {} named a DDP item the reply "
                        + "does not hold ({}); sending it without direct data placement", program, version, procedure,
                        e.getMessage());
                ddpOffset = -1;
                reply.send(message, ddpOffset);
            }
        } finally {
            inFlight.decrementAndGet();
        }
        if (key != null) {
            cache.complete(key, message, ddpOffset);
        }
    }

    private int locateItem(ByteBuffer message, int program, int version, int procedure) {
        for (UpperLayerBinding binding : bindings) {
            if (binding.program() != program || !binding.isDdpEligibleReply(version, procedure)) {
                continue;
            }
            int results = RpcMessages.resultsOffset(message);
            if (results < 0) {
                return -1;
            }
            ByteBuffer view = message.duplicate().position(message.position() + results);
            try {
                int at = binding.locateReplyItem(version, procedure, view);
                return at < 0 ? -1 : results + at;
            } catch (RuntimeException e) {
                LOG.warn("Upper-layer binding {} failed on a reply of program {} version {} procedure {}; sending it "
                        + "without direct data placement", binding, program, version, procedure, e);
                return -1;
            }
        }
        return -1;
    }
}
