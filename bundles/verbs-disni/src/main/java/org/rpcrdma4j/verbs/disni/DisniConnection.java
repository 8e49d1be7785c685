package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.impl.NatObject;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.QueuePairState;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * One DiSNI id (rdma_cm_id) with its queue pair: active (resolved by the manager) or passive (from
 * a connect request). Connect, accept and reject go through {@link DisniExtensions}, which carry
 * private data and the queue pair's READ depths (DiSNI 2.1's calls carry neither for accept).
 *
 * <p>Threading: the state is changed by the manager's event thread and by callers; every change
 * is under this object's monitor.
 */
final class DisniConnection implements Connection, AsyncEventRouter.Owner {
    /** Transport retries of a connect (the InfiniBand maximum). */
    static final int RETRY_COUNT = 7;

    enum State { RESOLVING, IDLE, REQUESTED, CONNECTING, CONNECTED, FAILED, DISCONNECTED, CLOSED }

    private final DisniConnectionManager manager;
    private final RdmaCmId id;
    private final long handle;
    private final boolean passive;
    private State state;
    private boolean disconnectRequested;
    /**
     * Held around every librdmacm call that reads or changes the id's queue pair: rdma_create_qp,
     * rdma_destroy_qp and rdma_disconnect (which moves id->qp to the error or SQD state). Without it
     * the connection manager's thread, answering a DISCONNECTED, ran rdma_disconnect on a queue pair
     * the completion loop was destroying: ibv_modify_qp on freed memory, SIGSEGV in libibverbs
     * (lab runs 1248 and 1332, siw). Never held while taking another lock.
     */
    private final Object queuePairCalls = new Object();
    /** Set by the first {@link #close()}: only that caller destroys the queue pair and the id. */
    private boolean closeClaimed;
    /** The device reported the queue pair failed (an asynchronous event); reported once. */
    private boolean queuePairFailed;
    private DisniDevice device;
    private DisniQueuePair queuePair;
    private volatile Object attachment;
    private InetSocketAddress remoteAddress;
    private int resolution = -1;
    private int resolutionStatus;
    private ByteBuffer privateData;
    /** From the connect request, as the CM reports it to this (passive) side: READs we may issue. */
    private int requestInitiatorDepth;
    /** From the connect request, as the CM reports it to this side: READs we must be ready to serve. */
    private int requestResponderResources;

    DisniConnection(DisniConnectionManager manager, RdmaCmId id, boolean passive) {
        this.manager = manager;
        this.id = id;
        this.handle = ((NatObject) id).getObjId();
        this.passive = passive;
        this.state = passive ? State.IDLE : State.RESOLVING;
    }

    RdmaCmId id() {
        return id;
    }

    /**
     * destroyQueuePairOfId() - rdma_destroy_qp, never concurrently with rdma_disconnect or
     * rdma_create_qp on this id (see {@link #queuePairCalls}).
     */
    void destroyQueuePairOfId() throws IOException {
        synchronized (queuePairCalls) {
            id.destroyQP();
        }
    }

    long handle() {
        return handle;
    }

    /** The route (active) or the request (passive) named the device. */
    synchronized void resolved(DisniDevice device) {
        this.device = device;
        if (state == State.RESOLVING) {
            state = State.IDLE;
        }
    }

    /**
     * The READ depths of the connect request, exactly as the connection manager reports them to
     * the passive side (rdma_cm_event.param.conn). The CM has already turned them round: the IB CM
     * puts the requester's responder resources into {@code initiator_depth} and its initiator depth
     * into {@code responder_resources} (cm_format_req_event), iWARP's does the same with IRD/ORD.
     * So {@code initiatorDepth} is how many RDMA READs this side may have in flight, and
     * {@code responderResources} how many it must serve.
     */
    synchronized void requestedReadDepths(int initiatorDepth, int responderResources) {
        this.requestInitiatorDepth = initiatorDepth;
        this.requestResponderResources = responderResources;
    }

    /**
     * The depths an accept answers with: ours, clamped to what the request allows (svcrdma's
     * rule: {@code sc_ord = min(param->initiator_depth, device max, svcrdma_ord)}, and a server
     * that never lets its peer READ from it serves none). The Linux client asks for initiator
     * depth 0 and offers its device's maximum responder resources; its request arrives here as
     * {@code (initiatorDepth = that maximum, responderResources = 0)}, and the server gets the
     * READ depth it needs to pull read chunks.
     *
     * @return {initiator depth, responder resources} for rdma_accept
     */
    static int[] acceptDepths(QueuePairAttributes attributes, int requestInitiatorDepth, int requestResponderResources) {
        return new int[] {Math.min(attributes.initiatorDepth(), requestInitiatorDepth),
            Math.min(attributes.responderResources(), requestResponderResources)};
    }

    synchronized void onResolution(int type, int status) {
        resolution = type;
        resolutionStatus = status;
    }

    synchronized int resolution() {
        return resolution;
    }

    synchronized int resolutionStatus() {
        return resolutionStatus;
    }

    synchronized int takeResolution() {
        int type = resolution;
        resolution = -1;
        return type;
    }

    /** Applies a contract event to the state before it is delivered. */
    synchronized void onEvent(ConnectionEventType type) {
        switch (type) {
            case CONNECT_REQUEST:
                state = State.REQUESTED;
                break;
            case ESTABLISHED:
                state = State.CONNECTED;
                break;
            case DISCONNECTED:
            case DEVICE_REMOVAL:
                state = State.DISCONNECTED;
                break;
            default:
                state = State.FAILED;
                break;
        }
    }

    /**
     * The queue pair's state as the connection's events imply it: cheap, for checks on the post
     * path. It misses an error completion's move to the error state; {@link DisniQueuePair#state()}
     * asks the device.
     */
    synchronized QueuePairState queuePairState() {
        if ((state == State.CONNECTED || state == State.CONNECTING && passive) && !disconnectRequested && !queuePairFailed) {
            // Passive side: rdma_accept has moved the queue pair to RTS before it returns (IB:
            // librdmacm's modify to RTR and RTS; iWARP: the kernel's iw_cm), so a reply may go out
            // before ESTABLISHED (the RTU) is seen here: the client may send its first call as
            // soon as it has the accept, and that call's receive can complete first.
            return QueuePairState.READY_TO_SEND;
        }
        return state == State.DISCONNECTED || state == State.FAILED || state == State.CLOSED || disconnectRequested || queuePairFailed
                ? QueuePairState.ERROR : QueuePairState.INIT;
    }

    @Override
    public synchronized VerbsDevice device() {
        return device;
    }

    @Override
    public InetSocketAddress localAddress() {
        try {
            return (InetSocketAddress) id.getSource();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddressOrNull();
    }

    /** The peer's address if already read (no native call: safe from any thread). */
    synchronized InetSocketAddress knownRemoteAddress() {
        return remoteAddress;
    }

    /**
     * The device reported this connection's queue pair failed: queues QUEUE_PAIR_FATAL on the
     * manager, once, unless the connection is closed. The state is left alone, so that the
     * consumer's close still disconnects (the peer learns of it).
     */
    @Override
    public void onQueuePairFatal(int asyncEventType) {
        synchronized (this) {
            if (queuePairFailed || state == State.CLOSED) {
                return;
            }
            queuePairFailed = true;
        }
        manager.queueQueuePairFatal(this, asyncEventType);
    }

    /** The peer's address, read once it is known (resolution or request) and then cached. */
    synchronized InetSocketAddress remoteAddressOrNull() {
        if (remoteAddress == null && state != State.RESOLVING && state != State.CLOSED) {
            try {
                remoteAddress = (InetSocketAddress) id.getDestination();
            } catch (IOException e) {
                return null;
            }
        }
        return remoteAddress;
    }

    @Override
    public synchronized QueuePair createQueuePair(ProtectionDomain protectionDomain, QueuePairAttributes attributes) throws VerbsException {
        checkNotClosed();
        if (queuePair != null) {
            throw new VerbsException("the connection has a queue pair already", Errno.EINVAL);
        }
        DisniProtectionDomain pd = checkResources(protectionDomain, attributes);
        DisniCompletionQueue sendCq = (DisniCompletionQueue) attributes.sendCompletionQueue();
        DisniCompletionQueue recvCq = (DisniCompletionQueue) attributes.receiveCompletionQueue();
        IbvQPInitAttr init = new IbvQPInitAttr();
        init.setQp_type(IbvQP.IBV_QPT_RC);
        init.setSend_cq(sendCq.cq());
        init.setRecv_cq(recvCq.cq());
        init.cap().setMax_send_wr(attributes.sendQueueDepth());
        init.cap().setMax_recv_wr(attributes.receiveQueueDepth());
        init.cap().setMax_send_sge(attributes.maxSendSge());
        init.cap().setMax_recv_sge(attributes.maxReceiveSge());
        init.cap().setMax_inline_data(attributes.maxInlineData());
        pd.acquire();
        try {
            sendCq.attach();
            try {
                recvCq.attach();
                try {
                    IbvQP created;
                    synchronized (queuePairCalls) {
                        created = id.createQP(pd.pd(), init);
                    }
                    queuePair = wrap(created, pd, attributes);
                    device.asyncEvents().register(queuePair.number(), this);
                    return queuePair;
                } catch (IOException e) {
                    recvCq.detach();
                    throw e instanceof VerbsException ? (VerbsException) e : DisniErrors.toVerbs("rdma_create_qp", e);
                }
            } catch (VerbsException e) {
                sendCq.detach();
                throw e;
            }
        } catch (VerbsException e) {
            pd.release();
            throw e;
        }
    }

    /** Wraps a created queue pair; destroys it again when even that fails. */
    private DisniQueuePair wrap(IbvQP qp, DisniProtectionDomain pd, QueuePairAttributes attributes) throws VerbsException {
        try {
            return new DisniQueuePair(this, qp, pd, attributes);
        } catch (IOException e) {
            try {
                destroyQueuePairOfId();
            } catch (IOException ignored) {
                // the failure to report is the first one
            }
            throw DisniErrors.toVerbs("querying the new queue pair", e);
        }
    }

    private DisniProtectionDomain checkResources(ProtectionDomain protectionDomain, QueuePairAttributes attributes) throws VerbsException {
        if (!(protectionDomain instanceof DisniProtectionDomain) || protectionDomain.device() != device
                || !(attributes.sendCompletionQueue() instanceof DisniCompletionQueue)
                || !(attributes.receiveCompletionQueue() instanceof DisniCompletionQueue)
                || attributes.sendCompletionQueue().device() != device || attributes.receiveCompletionQueue().device() != device) {
            throw new VerbsException("protection domain and completion queues must be of " + device, Errno.EINVAL);
        }
        DeviceCapabilities caps = device.capabilities();
        if (attributes.sendQueueDepth() > caps.maxQueueDepth() || attributes.receiveQueueDepth() > caps.maxQueueDepth()
                || attributes.maxSendSge() > caps.maxSendSge() || attributes.maxReceiveSge() > caps.maxReceiveSge()
                || attributes.maxInlineData() > caps.maxInlineData() || attributes.initiatorDepth() > caps.maxOutstandingReads()
                || attributes.responderResources() > caps.maxIncomingReads()) {
            throw new VerbsException("queue pair attributes exceed the device's limits " + caps, Errno.EINVAL);
        }
        return (DisniProtectionDomain) protectionDomain;
    }

    @Override
    public synchronized QueuePair queuePair() {
        return queuePair;
    }

    @Override
    public synchronized void connect(ByteBuffer data) throws VerbsException {
        checkNotClosed();
        if (passive || queuePair == null || state != State.IDLE) {
            throw new VerbsException("connect needs an active, resolved, idle connection with a queue pair (state " + state + ")",
                    Errno.EINVAL);
        }
        int length = stagePrivateData(data, MAX_CONNECT_PRIVATE_DATA);
        QueuePairAttributes a = queuePair.attributes();
        try {
            DisniExtensions.connect(handle, privateData, length, a.initiatorDepth(), a.responderResources(), RETRY_COUNT, a.rnrRetryCount());
        } catch (IOException e) {
            throw DisniErrors.toVerbs("rdma_connect", e);
        }
        state = State.CONNECTING;
    }

    @Override
    public synchronized void accept(ByteBuffer data) throws VerbsException {
        checkNotClosed();
        if (!passive || queuePair == null || state != State.REQUESTED) {
            throw new VerbsException("accept needs a pending connect request with a queue pair (state " + state + ")", Errno.EINVAL);
        }
        int length = stagePrivateData(data, MAX_ACCEPT_PRIVATE_DATA);
        QueuePairAttributes a = queuePair.attributes();
        int[] depths = acceptDepths(a, requestInitiatorDepth, requestResponderResources);
        try {
            DisniExtensions.accept(handle, privateData, length, depths[0], depths[1], a.rnrRetryCount());
        } catch (IOException e) {
            throw DisniErrors.toVerbs("rdma_accept", e);
        }
        state = State.CONNECTING;
    }

    @Override
    public synchronized void reject(ByteBuffer data) throws VerbsException {
        checkNotClosed();
        if (!passive || state != State.REQUESTED) {
            throw new VerbsException("reject needs a pending connect request (state " + state + ")", Errno.EINVAL);
        }
        int length = stagePrivateData(data, MAX_REJECT_PRIVATE_DATA);
        try {
            DisniExtensions.reject(handle, privateData, length);
        } catch (IOException e) {
            throw DisniErrors.toVerbs("rdma_reject", e);
        }
        state = State.FAILED;
    }

    /** Copies [position, limit) of the caller's buffer into this connection's direct buffer. */
    private int stagePrivateData(ByteBuffer data, int max) throws VerbsException {
        int length = data == null ? 0 : data.remaining();
        if (length > max) {
            throw new VerbsException("private data of " + length + " bytes exceeds " + max, Errno.EINVAL);
        }
        if (privateData == null) {
            privateData = ByteBuffer.allocateDirect(DisniExtensions.MAX_PRIVATE_DATA);
        }
        privateData.clear();
        if (length > 0) {
            privateData.put(data.duplicate());
        }
        return length;
    }

    @Override
    public void disconnect() throws VerbsException {
        synchronized (this) {
            if (state != State.CONNECTED && state != State.CONNECTING || disconnectRequested) {
                return;
            }
            disconnectRequested = true;
        }
        try {
            int ret;
            synchronized (queuePairCalls) {
                ret = id.disconnect();
            }
            if (ret != 0 && ret != -Errno.EINVAL) {
                throw new VerbsException("rdma_disconnect", -ret);
            }
        } catch (IOException e) {
            throw DisniErrors.toVerbs("rdma_disconnect", e);
        }
    }

    /**
     * Answers a DISCONNECTED this side did not ask for with rdma_disconnect, before the event is
     * delivered: it moves the queue pair to the error state, so that every outstanding request
     * flushes (the contract of DISCONNECTED), and on the IB CM (RoCE, rxe) it sends the DREP the
     * peer waits for: the peer that disconnected sees its own DISCONNECTED only on that DREP, or
     * after its DREQ timed out (the CM's retries, about a minute). The kernel's NFS server does the
     * same when its client goes (svc_rdma_detach calls rdma_disconnect). Does nothing after this side's
     * own disconnect; a refusal (the id is already down) changes nothing the event does not.
     *
     * <p>Called by the manager's event thread, under the channel lock.
     */
    void answerDisconnect() {
        try {
            disconnect();
        } catch (VerbsException ignored) {
            // the connection is down either way; the event still reports it
        }
    }

    @Override
    public void attach(Object attachment) {
        this.attachment = attachment;
    }

    @Override
    public Object attachment() {
        return attachment;
    }

    /**
     * Disconnects, destroys the queue pair (rdma_destroy_qp) and the id (rdma_destroy_id), once:
     * the first caller claims the close, any later or concurrent one returns at once (two callers
     * that both saw the connection open would each destroy the id, and rdma_destroy_id of a freed
     * id reads freed memory in native code).
     */
    @Override
    public void close() {
        DisniQueuePair qp;
        synchronized (this) {
            if (state == State.CLOSED || closeClaimed) {
                return;
            }
            closeClaimed = true;
        }
        try {
            disconnect();
        } catch (VerbsException ignored) {
            // closing: the queue pair is destroyed below either way
        }
        synchronized (this) {
            state = State.CLOSED;
            qp = queuePair;
        }
        if (qp != null) {
            qp.destroy();
        }
        manager.destroy(handle, id);
    }

    private void checkNotClosed() throws VerbsException {
        if (state == State.CLOSED) {
            throw new VerbsException("connection is closed", Errno.EBADF);
        }
    }

    @Override
    public String toString() {
        return "DisniConnection[" + (passive ? "passive " : "active ") + state + "]";
    }
}
