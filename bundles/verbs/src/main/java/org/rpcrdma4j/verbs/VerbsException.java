package org.rpcrdma4j.verbs;

import java.io.IOException;

/**
 * A verbs or connection-manager call failed at the API boundary.
 *
 * <p>Carries the {@link Errno errno} the verbs layer reported and, for a failed post of a chain
 * of work requests, the index of the first request that was <em>not</em> posted (requests before
 * it were posted and will complete normally). Work that fails <em>after</em> it was posted never
 * throws: it completes with an error {@link CompletionStatus} on the completion queue.
 */
public class VerbsException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int errno;
    private final int failedIndex;

    /**
     * Creates an exception for a failed call.
     *
     * @param message what was attempted
     * @param errno the {@link Errno} value reported
     */
    public VerbsException(String message, int errno) {
        this(message, errno, -1);
    }

    /**
     * Creates an exception for a failed post of a chain of work requests.
     *
     * @param message what was attempted
     * @param errno the {@link Errno} value reported
     * @param failedIndex the index in the chain of the first request not posted, or -1
     */
    public VerbsException(String message, int errno, int failedIndex) {
        super(message + " (" + Errno.toString(errno) + (failedIndex >= 0 ? ", at work request " + failedIndex : "") + ")");
        this.errno = errno;
        this.failedIndex = failedIndex;
    }

    /**
     * Creates an exception wrapping a provider-internal cause.
     *
     * @param message what was attempted
     * @param errno the {@link Errno} value reported
     * @param cause the provider's exception
     */
    public VerbsException(String message, int errno, Throwable cause) {
        this(message, errno);
        initCause(cause);
    }

    /** @return the {@link Errno} value the verbs layer reported */
    public int errno() {
        return errno;
    }

    /**
     * @return for a failed post, the index in the chain of the first work request that was not
     *         posted (all before it were posted); -1 when not a post failure
     */
    public int failedIndex() {
        return failedIndex;
    }
}
