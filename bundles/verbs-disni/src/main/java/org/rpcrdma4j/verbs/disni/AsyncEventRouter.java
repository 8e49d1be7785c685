package org.rpcrdma4j.verbs.disni;

import static org.rpcrdma4j.disni.ext.DisniExtensions.EVENT_DEVICE_FATAL;
import static org.rpcrdma4j.disni.ext.DisniExtensions.EVENT_QP_ACCESS_ERR;
import static org.rpcrdma4j.disni.ext.DisniExtensions.EVENT_QP_FATAL;
import static org.rpcrdma4j.disni.ext.DisniExtensions.EVENT_QP_REQ_ERR;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Routes one device's asynchronous events (ibv_get_async_event) to the owners of its queue pairs,
 * by queue pair number: the fatal ones only (QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR to the queue
 * pair named, DEVICE_FATAL to every one); COMM_EST, SQ_DRAINED, port and CQ events are nothing the
 * contract reports.
 *
 * <p>Threading: registration from any thread; {@link #route} from whichever connection manager
 * reads the device's events. A queue pair number is reused only after its queue pair is
 * destroyed, and ibv_destroy_qp waits for the acknowledgement of its events, which libdisni gives
 * as it takes them: an event read just before a destroy can, in the window between its
 * acknowledgement and this lookup, find the number's next owner; such a report is spurious but
 * only makes that connection close early.
 */
final class AsyncEventRouter {
    /** The owner of a queue pair: told once its queue pair failed. */
    interface Owner {
        /** @param asyncEventType the ibv_event_type reported */
        void onQueuePairFatal(int asyncEventType);
    }

    private final Map<Integer, Owner> owners = new ConcurrentHashMap<>();

    void register(int queuePairNumber, Owner owner) {
        owners.put(queuePairNumber, owner);
    }

    void unregister(int queuePairNumber, Owner owner) {
        owners.remove(queuePairNumber, owner);
    }

    boolean isEmpty() {
        return owners.isEmpty();
    }

    /**
     * @param type the ibv_event_type
     * @param element the queue pair number for a queue pair event
     * @return how many owners were told
     */
    int route(int type, int element) {
        switch (type) {
            case EVENT_QP_FATAL:
            case EVENT_QP_REQ_ERR:
            case EVENT_QP_ACCESS_ERR:
                Owner owner = owners.get(element);
                if (owner == null) {
                    return 0; // destroyed meanwhile
                }
                owner.onQueuePairFatal(type);
                return 1;
            case EVENT_DEVICE_FATAL:
                int told = 0;
                for (Owner each : owners.values()) {
                    each.onQueuePairFatal(type);
                    told++;
                }
                return told;
            default:
                return 0;
        }
    }
}
