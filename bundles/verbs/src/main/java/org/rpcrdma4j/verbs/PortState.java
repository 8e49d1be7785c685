package org.rpcrdma4j.verbs;

/**
 * The logical state of a device port ({@code enum ibv_port_state}); only {@link #ACTIVE} carries
 * traffic.
 */
public enum PortState {
    /** The provider cannot tell (IBV_PORT_NOP, or nothing readable). */
    UNKNOWN,
    /** No link (IBV_PORT_DOWN): cable out, peer down, netdev down. */
    DOWN,
    /** Link up, not configured by the subnet manager yet (IBV_PORT_INIT). */
    INIT,
    /** Configured, not yet active (IBV_PORT_ARMED). */
    ARMED,
    /** Up and usable (IBV_PORT_ACTIVE). */
    ACTIVE,
    /** Active, deferring to a failover (IBV_PORT_ACTIVE_DEFER). */
    ACTIVE_DEFER;

    /**
     * @param value the numeric {@code ibv_port_state}, as libibverbs and sysfs ({@code "4: ACTIVE"}) give it
     * @return the state; {@link #UNKNOWN} for a value outside 1..5
     */
    public static PortState of(int value) {
        PortState[] all = values();
        return value >= 1 && value < all.length ? all[value] : UNKNOWN;
    }
}
