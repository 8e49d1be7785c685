package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.disni.ext.DisniExtensions;

/** The routing of a device's asynchronous events to the owners of its queue pairs (no device needed). */
class AsyncEventRouterTest {
    private static final int IBV_EVENT_CQ_ERR = 0;
    private static final int IBV_EVENT_COMM_EST = 4;
    private static final int IBV_EVENT_PORT_ERR = 10;

    private final AsyncEventRouter router = new AsyncEventRouter();
    private final List<Integer> first = new ArrayList<>();
    private final List<Integer> second = new ArrayList<>();
    private final AsyncEventRouter.Owner firstOwner = first::add;
    private final AsyncEventRouter.Owner secondOwner = second::add;

    @Test
    void fatalQueuePairEventsReachTheOwnerOfTheNumberedQueuePairOnly() {
        assertTrue(router.isEmpty());
        router.register(17, firstOwner);
        router.register(18, secondOwner);
        assertFalse(router.isEmpty());
        assertEquals(1, router.route(DisniExtensions.EVENT_QP_FATAL, 17));
        assertEquals(1, router.route(DisniExtensions.EVENT_QP_REQ_ERR, 18));
        assertEquals(1, router.route(DisniExtensions.EVENT_QP_ACCESS_ERR, 17));
        assertEquals(0, router.route(DisniExtensions.EVENT_QP_FATAL, 99), "no queue pair of ours");
        assertEquals(List.of(DisniExtensions.EVENT_QP_FATAL, DisniExtensions.EVENT_QP_ACCESS_ERR), first);
        assertEquals(List.of(DisniExtensions.EVENT_QP_REQ_ERR), second);
    }

    @Test
    void aDeviceFatalEventReachesEveryOwnerAndOtherEventsNone() {
        router.register(17, firstOwner);
        router.register(18, secondOwner);
        assertEquals(0, router.route(IBV_EVENT_COMM_EST, 17));
        assertEquals(0, router.route(IBV_EVENT_PORT_ERR, 1));
        assertEquals(0, router.route(IBV_EVENT_CQ_ERR, 0));
        assertTrue(first.isEmpty() && second.isEmpty());
        assertEquals(2, router.route(DisniExtensions.EVENT_DEVICE_FATAL, 0));
        assertEquals(List.of(DisniExtensions.EVENT_DEVICE_FATAL), first);
        assertEquals(List.of(DisniExtensions.EVENT_DEVICE_FATAL), second);
    }

    @Test
    void unregisteringKeepsANumbersNewOwner() {
        router.register(17, firstOwner);
        router.register(17, secondOwner); // the number was reused by a new queue pair
        router.unregister(17, firstOwner); // the old one's late destroy
        assertEquals(1, router.route(DisniExtensions.EVENT_QP_FATAL, 17));
        assertEquals(List.of(DisniExtensions.EVENT_QP_FATAL), second);
        router.unregister(17, secondOwner);
        assertTrue(router.isEmpty());
    }

    @Test
    void theEventConstantsAreLibibverbsValues() {
        assertEquals(1, DisniExtensions.EVENT_QP_FATAL);
        assertEquals(2, DisniExtensions.EVENT_QP_REQ_ERR);
        assertEquals(3, DisniExtensions.EVENT_QP_ACCESS_ERR);
        assertEquals(8, DisniExtensions.EVENT_DEVICE_FATAL);
    }
}
