package org.rpcrdma4j.transport;

/**
 * RdmaTransportStatus - whether the RPC-over-RDMA transport of the host serves and, when it does
 * not or when its configuration was last refused, why: what the operator's console says where
 * no {@link RdmaTransportControl} is registered. In OSGi the transport component registers it for
 * as long as it is active, serving or not.
 *
 * <p>Threading: every method is safe from any thread.
 */
public interface RdmaTransportStatus {
    /**
     * @return one line: serving (provider, address), waiting for a verbs provider (which, and
     *     what is present), disabled, or not serving because its configuration was refused
     */
    String state();

    /**
     * @return why the last configuration given (PID {@code org.rpcrdma4j.transport}) was
     *     refused, naming the property and the value; null when it was accepted
     */
    String refusal();

    /**
     * @param state what {@link #state()} returns
     * @param refusal what {@link #refusal()} returns, or null
     * @return a fixed status (a snapshot, or a stand-in where no transport runs)
     */
    static RdmaTransportStatus of(String state, String refusal) {
        return new RdmaTransportStatus() {
            @Override
            public String state() {
                return state;
            }

            @Override
            public String refusal() {
                return refusal;
            }
        };
    }
}
