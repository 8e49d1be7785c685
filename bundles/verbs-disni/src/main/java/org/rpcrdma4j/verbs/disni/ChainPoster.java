package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A chain of work requests into libdisni's records and to the device with one post per
 * {@link #BATCH} requests: what {@link SendPoster} and {@link ReceivePoster} share. Each request
 * is checked, then written into the next slot of the staging area; a full staging area is posted
 * and the chain goes on from its first slot.
 *
 * <p>Failures keep the contract's {@code failedIndex}: a request the poster refuses is reported
 * at its index after the requests before it were posted; one the device refuses, at the index
 * bad_wr names, the requests before it being posted.
 *
 * <p>Not thread-safe: the queue pair serialises posts.
 *
 * @param <W> the work request type (send or receive)
 */
abstract class ChainPoster<W> {
    /** Requests per post: libdisni translates chains this long on its stack. */
    static final int BATCH = 16;

    private final PostRecords records;

    ChainPoster(int recordBytes, int maxSge) {
        this.records = new PostRecords(BATCH, recordBytes, maxSge);
    }

    /** Checks and posts the chain starting at first. */
    final void post(W first) throws VerbsException {
        int batchStart = 0;
        int written = 0;
        int index = 0;
        for (W wr = first; wr != null; wr = next(wr), index++) {
            try {
                check(wr, index);
            } catch (VerbsException refused) {
                if (written > 0) {
                    execute(batchStart, written);
                }
                throw refused;
            }
            write(written, wr);
            if (++written == BATCH) {
                execute(batchStart, written);
                batchStart += written;
                written = 0;
            }
        }
        if (written > 0) {
            execute(batchStart, written);
        }
    }

    /** The staging area the records are written into (tests read the latest post from it). */
    final PostRecords records() {
        return records;
    }

    /** @return the request after wr in its chain, or null */
    abstract W next(W wr);

    /** @throws VerbsException EINVAL at index when the queue pair cannot take the request */
    abstract void check(W wr, int index) throws VerbsException;

    /** Writes a checked request into the slot, linked after the previous slot's. */
    abstract void write(int slot, W wr);

    /**
     * Posts the first count slots with one post.
     *
     * @param batchStart the chain index of the first slot, so a failure names the request's index
     */
    private void execute(int batchStart, int count) throws VerbsException {
        try {
            postRecords(records.recordAddress(0));
        } catch (IOException e) {
            VerbsException v = DisniErrors.toVerbs(postName() + " of " + count + " work request(s)", e);
            throw new VerbsException(v.getMessage(), v.errno(), batchStart + Math.max(0, v.failedIndex()));
        }
    }

    /** One post (ibv_post_send or ibv_post_recv) of the chain of records starting at first. */
    abstract void postRecords(long first) throws IOException;

    /** @return the verb a post calls, for messages */
    abstract String postName();
}
