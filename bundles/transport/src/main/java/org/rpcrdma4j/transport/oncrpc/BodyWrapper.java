package org.rpcrdma4j.transport.oncrpc;

import java.nio.ByteBuffer;

import org.glassfish.grizzly.memory.ByteBufferWrapper;

/**
 * BodyWrapper - a Grizzly buffer over an inline call's body view, re-pointed for each call of its
 * {@link CallTransport} instead of made anew (with a slice of the view) per call. The view is
 * the receive context's own, positioned at the body; {@link CallXdr} decodes from that position.
 *
 * <p>Never disposed (the memory is the transport's registered receive buffer). Threading: the
 * one worker serving the call.
 */
final class BodyWrapper extends ByteBufferWrapper {
    BodyWrapper() {
        allowBufferDispose(false);
    }

    /** wrap() - point at {@code view}, read in place from its position to its limit. */
    BodyWrapper wrap(ByteBuffer view) {
        visible = view;
        mark = -1;
        return this;
    }

    /** clear() the reference once the call is done, so no receive buffer is held. */
    void forget() {
        visible = null;
    }
}
