package org.rpcrdma4j.testing.rawpeer;

import java.nio.ByteBuffer;

/**
 * ReceiveHandler - takes one message the server sent to a {@link RawPeer}, in place in the
 * peer's registered receive memory.
 *
 * <p>Assumptions: the bytes are valid only during the call; the handler MUST NOT keep
 * {@code buffer} or write into it, since the peer reposts the receive as soon as it returns.
 */
@FunctionalInterface
public interface ReceiveHandler {
    /**
     * @param buffer the peer's receive region (absolute indexing; position and limit are not the message's)
     * @param offset where the message starts
     * @param length its bytes
     */
    void onReceive(ByteBuffer buffer, int offset, int length);
}
