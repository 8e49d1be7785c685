package org.rpcrdma4j.verbs.loopback;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.QueuedConnectionEvent;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A loopback connection: the connection-manager state machine of one side, linked to the other
 * side's connection; establishing links the two queue pairs.
 *
 * <p>Threading: state under the fabric lock; the attachment is volatile.
 */
final class LoopbackConnection implements Connection {
    private enum State { IDLE, CONNECTING, REQUESTED, ESTABLISHED, DISCONNECTED, REJECTED, CLOSED }

    private final LoopbackConnectionManager manager;
    private final LoopbackFabric fabric;
    private final boolean passive;
    private final InetSocketAddress localAddress;
    private final InetSocketAddress remoteAddress;
    private State state = State.IDLE;
    private LoopbackConnection peer;
    private LoopbackListeningEndpoint endpoint;
    private LoopbackQueuePair queuePair;
    private volatile Object attachment;

    LoopbackConnection(LoopbackConnectionManager manager, boolean passive, InetSocketAddress localAddress, InetSocketAddress remoteAddress) {
        this.manager = manager;
        this.fabric = manager.fabric;
        this.passive = passive;
        this.localAddress = localAddress;
        this.remoteAddress = remoteAddress;
    }

    @Override
    public VerbsDevice device() {
        return fabric.device();
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public QueuePair createQueuePair(ProtectionDomain protectionDomain, QueuePairAttributes attributes) throws VerbsException {
        fabric.lock.lock();
        try {
            if (state == State.CLOSED) {
                throw new VerbsException("connection is closed", Errno.EBADF);
            }
            if (queuePair != null) {
                throw new VerbsException("the connection has a queue pair already", Errno.EINVAL);
            }
            LoopbackProtectionDomain domain = ownDomain(protectionDomain);
            LoopbackCompletionQueue sendQueue = ownQueue(attributes.sendCompletionQueue());
            LoopbackCompletionQueue receiveQueue = ownQueue(attributes.receiveCompletionQueue());
            checkLimits(attributes, fabric.capabilities());
            domain.acquire();
            try {
                sendQueue.attach();
                try {
                    receiveQueue.attach();
                } catch (VerbsException e) {
                    sendQueue.detach();
                    throw e;
                }
            } catch (VerbsException e) {
                domain.release();
                throw e;
            }
            queuePair = new LoopbackQueuePair(fabric, fabric.nextQueuePairNumber(), domain, attributes);
            fabric.addQueuePair(queuePair);
            return queuePair;
        } finally {
            fabric.lock.unlock();
        }
    }

    /** Under the fabric lock: the other end, or null. */
    LoopbackConnection peerLocked() {
        return peer;
    }

    /** Under the fabric lock: this end's queue pair, or null. */
    LoopbackQueuePair queuePairLocked() {
        return queuePair;
    }

    @Override
    public QueuePair queuePair() {
        fabric.lock.lock();
        try {
            return queuePair;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void connect(ByteBuffer privateData) throws VerbsException {
        byte[] data = copy(privateData, MAX_CONNECT_PRIVATE_DATA);
        fabric.lock.lock();
        try {
            if (passive || state != State.IDLE || queuePair == null) {
                throw new VerbsException("connect needs an idle active connection with a queue pair (state " + state + ")", Errno.EINVAL);
            }
            LoopbackListeningEndpoint listener = fabric.listenerAt(remoteAddress);
            if (listener == null || !listener.admitRequest()) {
                state = State.REJECTED;
                manager.deliver(new QueuedConnectionEvent(ConnectionEventType.REJECTED, this, null, null, remoteAddress, Errno.ECONNREFUSED));
                return;
            }
            LoopbackConnection request = new LoopbackConnection(listener.manager, true, remoteAddress, localAddress);
            if (!listener.manager.adopt(request)) {
                listener.requestAnswered();
                state = State.REJECTED;
                manager.deliver(new QueuedConnectionEvent(ConnectionEventType.REJECTED, this, null, null, remoteAddress, Errno.ECONNREFUSED));
                return;
            }
            request.state = State.REQUESTED;
            request.endpoint = listener;
            request.peer = this;
            peer = request;
            state = State.CONNECTING;
            listener.manager.deliver(new QueuedConnectionEvent(ConnectionEventType.CONNECT_REQUEST, request, listener, data, localAddress, 0));
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void accept(ByteBuffer privateData) throws VerbsException {
        byte[] data = copy(privateData, MAX_ACCEPT_PRIVATE_DATA);
        fabric.lock.lock();
        try {
            checkPendingRequest("accept");
            if (queuePair == null) {
                throw new VerbsException("accept needs a queue pair", Errno.EINVAL);
            }
            answerRequest();
            LoopbackConnection active = peer;
            if (active == null || active.state != State.CONNECTING) {
                state = State.DISCONNECTED;
                throw new VerbsException("the peer abandoned its connect request", Errno.ENOTCONN);
            }
            queuePair.connectTo(active.queuePair);
            active.queuePair.connectTo(queuePair);
            state = State.ESTABLISHED;
            active.state = State.ESTABLISHED;
            manager.deliver(new QueuedConnectionEvent(ConnectionEventType.ESTABLISHED, this, null, null, remoteAddress, 0));
            active.manager.deliver(new QueuedConnectionEvent(ConnectionEventType.ESTABLISHED, active, null, data, active.remoteAddress, 0));
            fabric.workPosted();
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void reject(ByteBuffer privateData) throws VerbsException {
        byte[] data = copy(privateData, MAX_REJECT_PRIVATE_DATA);
        fabric.lock.lock();
        try {
            checkPendingRequest("reject");
            answerRequest();
            state = State.REJECTED;
            rejectPeer(data);
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void disconnect() {
        fabric.lock.lock();
        try {
            disconnectLocked();
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void attach(Object context) {
        this.attachment = context;
    }

    @Override
    public Object attachment() {
        return attachment;
    }

    @Override
    public void close() {
        fabric.lock.lock();
        try {
            if (state == State.CLOSED) {
                return;
            }
            if (state == State.REQUESTED) {
                answerRequest();
                rejectPeer(null);
            }
            disconnectLocked();
            if (peer != null && peer.peer == this) {
                peer.peer = null;
            }
            peer = null;
            state = State.CLOSED;
            if (queuePair != null) {
                queuePair.destroy();
                fabric.removeQueuePair(queuePair);
            }
            manager.forget(this);
        } finally {
            fabric.lock.unlock();
        }
    }

    /** Under the fabric lock: a lost link (fault injection). */
    void dropLocked() {
        if (state != State.ESTABLISHED) {
            return;
        }
        queuePair.failHeadSend(CompletionStatus.TRANSPORT_RETRY_EXCEEDED);
        if (peer != null && peer.queuePair != null) {
            peer.queuePair.failHeadSend(CompletionStatus.TRANSPORT_RETRY_EXCEEDED);
        }
        disconnectLocked();
    }

    /** Under the fabric lock: a fatal queue pair event (fault injection); see LoopbackFaults#failQueuePair. */
    void failQueuePairLocked() {
        final int ibvEventQpFatal = 1; // enum ibv_event_type IBV_EVENT_QP_FATAL, the event's status
        if (state != State.ESTABLISHED || queuePair == null || queuePair.state() == org.rpcrdma4j.verbs.QueuePairState.ERROR) {
            return;
        }
        queuePair.enterError();
        manager.deliver(new QueuedConnectionEvent(ConnectionEventType.QUEUE_PAIR_FATAL, this, null, null, remoteAddress, ibvEventQpFatal));
    }

    private void disconnectLocked() {
        if (state == State.CONNECTING) {
            state = State.DISCONNECTED;
            return;
        }
        if (state != State.ESTABLISHED) {
            return;
        }
        state = State.DISCONNECTED;
        queuePair.enterError();
        manager.deliver(new QueuedConnectionEvent(ConnectionEventType.DISCONNECTED, this, null, null, remoteAddress, 0));
        LoopbackConnection other = peer;
        if (other != null && other.state == State.ESTABLISHED) {
            other.state = State.DISCONNECTED;
            other.queuePair.enterError();
            other.manager.deliver(new QueuedConnectionEvent(ConnectionEventType.DISCONNECTED, other, null, null, other.remoteAddress, 0));
        }
        fabric.workPosted();
    }

    private void rejectPeer(byte[] data) {
        LoopbackConnection active = peer;
        if (active != null && active.state == State.CONNECTING) {
            active.state = State.REJECTED;
            active.peer = null;
            active.manager.deliver(new QueuedConnectionEvent(ConnectionEventType.REJECTED, active, null, data, active.remoteAddress, Errno.ECONNREFUSED));
        }
        peer = null;
    }

    private void checkPendingRequest(String what) throws VerbsException {
        if (!passive || state != State.REQUESTED) {
            throw new VerbsException(what + " needs a pending connect request (state " + state + ")", Errno.EINVAL);
        }
    }

    private void answerRequest() {
        if (endpoint != null) {
            endpoint.requestAnswered();
            endpoint = null;
        }
    }

    private LoopbackProtectionDomain ownDomain(ProtectionDomain domain) throws VerbsException {
        if (!(domain instanceof LoopbackProtectionDomain) || domain.device() != fabric.device()) {
            throw new VerbsException("protection domain of another device", Errno.EINVAL);
        }
        return (LoopbackProtectionDomain) domain;
    }

    private LoopbackCompletionQueue ownQueue(CompletionQueue queue) throws VerbsException {
        if (!(queue instanceof LoopbackCompletionQueue) || queue.device() != fabric.device()) {
            throw new VerbsException("completion queue of another device", Errno.EINVAL);
        }
        return (LoopbackCompletionQueue) queue;
    }

    private static void checkLimits(QueuePairAttributes a, DeviceCapabilities c) throws VerbsException {
        if (a.sendQueueDepth() > c.maxQueueDepth() || a.receiveQueueDepth() > c.maxQueueDepth()
                || a.maxSendSge() > c.maxSendSge() || a.maxReceiveSge() > c.maxReceiveSge() || a.maxInlineData() > c.maxInlineData()
                || a.initiatorDepth() > c.maxOutstandingReads() || a.responderResources() > c.maxIncomingReads()) {
            throw new VerbsException("queue pair attributes exceed the device's capabilities " + c, Errno.EINVAL);
        }
    }

    private static byte[] copy(ByteBuffer privateData, int max) throws VerbsException {
        if (privateData == null) {
            return null;
        }
        int length = privateData.remaining();
        if (length > max) {
            throw new VerbsException(length + " bytes of private data exceed " + max, Errno.EINVAL);
        }
        byte[] data = new byte[length];
        privateData.duplicate().get(data);
        return data;
    }

    @Override
    public String toString() {
        return "LoopbackConnection[" + (passive ? "passive " : "active ") + localAddress + " -> " + remoteAddress + " " + state + "]";
    }
}
