package org.rpcrdma4j.client;

/**
 * The server's side of the RFC 8797 exchange, as read from its accept private data: how large a
 * message it receives inline (so the largest call this client may send inline), how large a reply
 * it sends inline, and whether it allows remote invalidation.
 *
 * <p>When the accept carries no valid RFC 8797 private data both sizes are the RFC 8166 default
 * of 1024 bytes and {@link #fromPrivateData()} is false.
 *
 * @param receiveSize the largest message the server receives inline
 * @param sendSize the largest message the server sends inline
 * @param remoteInvalidation whether the server set the "Send With Invalidate OK" flag
 * @param fromPrivateData whether the values came from the server's private data
 */
public record ConnectionParameters(int receiveSize, int sendSize, boolean remoteInvalidation, boolean fromPrivateData) {
    /** The RFC 8166 inline threshold assumed without private data. */
    public static final int DEFAULT_INLINE_SIZE = 1024;

    /** Parameters of a peer that sent no RFC 8797 private data. */
    public static final ConnectionParameters DEFAULTS =
            new ConnectionParameters(DEFAULT_INLINE_SIZE, DEFAULT_INLINE_SIZE, false, false);

    /**
     * Checks the sizes.
     *
     * @throws IllegalArgumentException when a size is not positive
     */
    public ConnectionParameters {
        if (receiveSize <= 0 || sendSize <= 0) {
            throw new IllegalArgumentException("sizes must be positive: receive " + receiveSize + ", send " + sendSize);
        }
    }
}
