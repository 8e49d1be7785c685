package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.impl.NatObject;
import java.io.IOException;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.QueuePairState;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A reliable-connected queue pair (DiSNI IbvQP), owned by its {@link DisniConnection}. A chain is
 * posted with one ibv_post_send or ibv_post_recv, one doorbell (in pieces of 16 requests when
 * longer; see {@link SendPoster} and {@link ReceivePoster}): for a failure, the index of the
 * request that failed is exact, and every request before it was posted (the contract's
 * {@code failedIndex}).
 *
 * <p>The state and the queues' real sizes come from the device ({@link DisniExtensions#queryQueuePair},
 * ibv_query_qp): an error completion moves the queue pair to the error state in the device
 * without any connection event, and devices round queue sizes up.
 */
final class DisniQueuePair implements QueuePair {
    private final DisniConnection connection;
    private final DisniProtectionDomain pd;
    private final QueuePairAttributes attributes;
    private final long handle;
    private final int number;
    private final int sendCapacity;
    private final int receiveCapacity;
    private final SendPoster sends;
    private final ReceivePoster receives;
    private boolean destroyed; // guarded by both post locks for writing, either for reading

    DisniQueuePair(DisniConnection connection, IbvQP qp, DisniProtectionDomain pd, QueuePairAttributes attributes) throws IOException {
        this.connection = connection;
        this.pd = pd;
        this.attributes = attributes;
        this.handle = ((NatObject) qp).getObjId();
        this.number = qp.getQp_num();
        int[] queried = query(handle);
        this.sendCapacity = queried[DisniExtensions.QP_MAX_SEND_WR];
        this.receiveCapacity = queried[DisniExtensions.QP_MAX_RECV_WR];
        this.sends = new SendPoster(handle, attributes, pd.device().capabilities().remoteInvalidation());
        this.receives = new ReceivePoster(handle, attributes);
    }

    @Override
    public int number() {
        return number;
    }

    @Override
    public DisniProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public QueuePairAttributes attributes() {
        return attributes;
    }

    @Override
    public int sendQueueCapacity() {
        return sendCapacity;
    }

    @Override
    public int receiveQueueCapacity() {
        return receiveCapacity;
    }

    /**
     * Queries the device (ibv_query_qp), under the send post lock so that it never runs on a
     * destroyed queue pair. Where the query fails, or reports RESET, the state the connection's
     * events imply: a queue pair created through the connection manager is moved to INIT at once
     * and never back, and siw of Linux 6.1 leaves the state unset (0, RESET) in its query.
     */
    @Override
    public QueuePairState state() {
        synchronized (sends) {
            if (destroyed) {
                return QueuePairState.ERROR;
            }
            int queried;
            try {
                queried = query(handle)[DisniExtensions.QP_STATE];
            } catch (IOException e) {
                return connection.queuePairState();
            }
            return queried == DisniExtensions.QPS_RESET ? connection.queuePairState() : stateOf(queried);
        }
    }

    /** ibv_query_qp: the state and the queue sizes the device gave, indexed by DisniExtensions.QP_*. */
    private static int[] query(long handle) throws IOException {
        int[] queried = new int[DisniExtensions.QP_FIELDS];
        DisniExtensions.queryQueuePair(handle, queried);
        return queried;
    }

    /** enum ibv_qp_state → the contract's state. */
    static QueuePairState stateOf(int ibvState) {
        switch (ibvState) {
            case DisniExtensions.QPS_RTS:
            case DisniExtensions.QPS_SQD:
                return QueuePairState.READY_TO_SEND;
            case DisniExtensions.QPS_SQE:
            case DisniExtensions.QPS_ERR:
                return QueuePairState.ERROR;
            default:
                return QueuePairState.INIT; // RESET, INIT, RTR: not yet able to send
        }
    }

    /** Checks the connection's state, not the device's: a post must not cost a system call. */
    @Override
    public void postSend(SendWorkRequest first) throws VerbsException {
        if (connection.queuePairState() == QueuePairState.INIT) {
            throw new VerbsException("send before the connection is established", Errno.EINVAL, 0);
        }
        synchronized (sends) {
            checkNotDestroyed();
            sends.post(first);
        }
    }

    @Override
    public void postReceive(ReceiveWorkRequest first) throws VerbsException {
        synchronized (receives) {
            checkNotDestroyed();
            receives.post(first);
        }
    }

    /**
     * Destroys the queue pair (rdma_destroy_qp); once. Holds both post
     * locks meanwhile, so no post is in native code on a queue pair being destroyed.
     */
    void destroy() {
        synchronized (sends) {
            synchronized (receives) {
                if (destroyed) {
                    return;
                }
                destroyed = true;
                try {
                    connection.destroyQueuePairOfId();
                } catch (IOException ignored) {
                    // the id is destroyed next, which destroys what is left
                }
            }
        }
        pd.device().asyncEvents().unregister(number, connection);
        ((DisniCompletionQueue) attributes.sendCompletionQueue()).detach();
        ((DisniCompletionQueue) attributes.receiveCompletionQueue()).detach();
        pd.release();
    }

    /** Caller holds a post lock. */
    private void checkNotDestroyed() throws VerbsException {
        if (destroyed) {
            throw new VerbsException("queue pair is destroyed", Errno.EBADF, 0);
        }
    }

    @Override
    public String toString() {
        return "DisniQueuePair[" + number + " " + connection.queuePairState() + "]";
    }
}
