package org.rpcrdma4j.client;

/**
 * Credit accounting of RPC-over-RDMA version 1 (RFC 8166 §3.3.1): never more calls outstanding
 * than the server's last grant; a grant of 1 is assumed until the first reply; a grant is capped
 * by the receives this client posted, and a (forbidden) grant of 0 counts as 1 so the connection
 * cannot stall. A reply's credit comes back only once the receive it took is posted again: a
 * call sent before that could draw its reply onto a receive queue one short (RNR, and on a
 * finite RNR retry count a failed connection).
 *
 * <p>Not thread-safe: the client's lock guards it.
 */
final class CreditWindow {
    private final int maxCredits;
    private final boolean enforce;
    private int granted = 1;
    private int outstanding;
    /** Receives replies took this round, posted again at its end ({@link #onReceivesReposted}). */
    private int receivesToRepost;
    private int highWater;

    /**
     * @param maxCredits the receives posted, so the most calls ever outstanding
     * @param enforce false to ignore grants (tests of a server's overrun handling)
     */
    CreditWindow(int maxCredits, boolean enforce) {
        this.maxCredits = maxCredits;
        this.enforce = enforce;
    }

    /** @return whether one more call may go out now */
    boolean mayPost() {
        return outstanding + receivesToRepost < (enforce ? Math.min(granted, maxCredits) : maxCredits);
    }

    /** Counts a call posted. */
    void onPost() {
        outstanding++;
        highWater = Math.max(highWater, outstanding);
    }

    /** Counts a call retired without taking a receive: sent expecting no reply, or drained. */
    void onRetire() {
        outstanding--;
    }

    /** Counts a call answered: retired, its reply's receive to be posted again before its credit is used. */
    void onAnswered() {
        outstanding--;
        receivesToRepost++;
    }

    /** The receives of this round's replies are posted again: their credits may be used. */
    void onReceivesReposted() {
        receivesToRepost = 0;
    }

    /**
     * Takes the grant of a reply.
     *
     * @param credits the reply's credit field (an XDR unsigned int)
     */
    void onGrant(int credits) {
        granted = (int) Math.max(1, Math.min(Integer.toUnsignedLong(credits), maxCredits));
    }

    /** @return the grant in force */
    int granted() {
        return granted;
    }

    /** @return calls outstanding */
    int outstanding() {
        return outstanding;
    }

    /** @return the most calls outstanding at once so far */
    int highWater() {
        return highWater;
    }
}
