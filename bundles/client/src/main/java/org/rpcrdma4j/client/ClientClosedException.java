package org.rpcrdma4j.client;

import java.io.IOException;

/**
 * A call failed because its connection is gone: closed by this client, disconnected by the
 * server, or broken by a failed work request. The reason is the message (and the cause, if any).
 */
public final class ClientClosedException extends IOException {
    private static final long serialVersionUID = 1L;

    ClientClosedException(String reason) {
        super(reason);
    }

    ClientClosedException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
