package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

/**
 * BackwardCallHandler - the callback program of a client: it answers the RPC calls the server
 * sends back on the same connection (RFC 8167 backward direction; NFSv4.1 callbacks such as
 * CB_NULL, CB_RECALL). Registered with {@link ClientConfig.Builder#backchannel}.
 *
 * <p>Runs on one of the client's callback threads (never on the thread that polls completions),
 * so it MAY block, and MAY itself make forward calls on the same client.
 */
@FunctionalInterface
public interface BackwardCallHandler {
    /**
     * answer() - run one backward call.
     *
     * @param rpcCall the whole RPC call message (xid first), a copy the handler owns
     * @return the whole RPC reply message (the call's xid first, message type REPLY), read from
     *         its position to its limit; or null to send no reply. A reply longer than the
     *         server's receive size allows, or a handler that throws, is answered with an
     *         accepted reply of status SYSTEM_ERR instead, so the server never waits in vain
     * @throws Exception any failure of the program (answered SYSTEM_ERR)
     */
    ByteBuffer answer(ByteBuffer rpcCall) throws Exception;
}
