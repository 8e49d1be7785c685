package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Turns DiSNI's {@link IOException}s into {@link VerbsException}s. libdisni ends its messages with
 * {@code [errno N]} and, for posts, {@code [wr I]}; exceptions DiSNI's Java side raises itself
 * (e.g. "Trying to ... closed ...") carry neither and map to {@link Errno#EBADF} when they name a
 * closed object, else to EIO. A {@link VerbsException} passing through keeps its errno.
 */
final class DisniErrors {
    /** Linux EIO: an error without a more precise errno. */
    static final int EIO = 5;
    /** Linux ENOSYS: no kernel support (ibv_get_device_list without the verbs class). */
    static final int ENOSYS = 38;
    /** Linux ENODEV: no such device (rdma_create_event_channel without devices). */
    static final int ENODEV = 19;

    private static final String ERRNO_TAG = "[errno ";
    private static final String WR_TAG = "[wr ";

    private DisniErrors() {
    }

    /**
     * @param what the operation, for the message
     * @param e DiSNI's exception
     * @return a VerbsException with the errno (and failed work request index) it carried
     */
    static VerbsException toVerbs(String what, IOException e) {
        String message = e.getMessage() != null ? e.getMessage() : "";
        if (e instanceof VerbsException) {
            // one of ours, thrown inside a try that catches DiSNI's IOException: keep its errno
            VerbsException ours = (VerbsException) e;
            VerbsException v = new VerbsException(what + ": " + message, ours.errno(), ours.failedIndex());
            v.initCause(e);
            return v;
        }
        int errno = tagValue(message, ERRNO_TAG);
        if (errno < 0) {
            errno = message.contains("closed") || message.contains("destroyed") ? Errno.EBADF : EIO;
        }
        VerbsException v = new VerbsException(what + ": " + message, errno, tagValue(message, WR_TAG));
        v.initCause(e);
        return v;
    }

    /** @return the errno of an exception libdisni raised, or -1 */
    static int errnoOf(IOException e) {
        return e.getMessage() != null ? tagValue(e.getMessage(), ERRNO_TAG) : -1;
    }

    private static int tagValue(String message, String tag) {
        int start = message.lastIndexOf(tag);
        if (start < 0) {
            return -1;
        }
        int end = message.indexOf(']', start);
        if (end < 0) {
            return -1;
        }
        try {
            return Integer.parseInt(message.substring(start + tag.length(), end));
        } catch (NumberFormatException ignored) {
            return -1;
        }
    }
}
