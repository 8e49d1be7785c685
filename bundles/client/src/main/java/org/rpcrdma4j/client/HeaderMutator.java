package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

/**
 * A test hook that corrupts a call on its way out, so a server's answer to each malformed header
 * can be checked: change the version, a count, a position, a discriminator, truncate or extend.
 */
@FunctionalInterface
public interface HeaderMutator {
    /**
     * Changes the encoded message in place.
     *
     * <p>Assumptions: called on the thread that posts the call, with the client's internal lock
     * held: it MUST NOT block or call the client. The buffer is the registered send buffer of
     * the call: index 0 is the header's first byte, the limit is the message length and the
     * capacity the largest message that may be sent. Whatever lies between 0 and the limit on
     * return is sent; the buffer MUST NOT be kept.
     *
     * @param message the header followed by the inline RPC message (big-endian)
     * @param layout where the header's fields are in {@code message}
     */
    void mutate(ByteBuffer message, HeaderLayout layout);
}
