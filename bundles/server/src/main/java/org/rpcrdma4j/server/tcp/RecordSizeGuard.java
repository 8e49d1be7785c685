package org.rpcrdma4j.server.tcp;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.rpcrdma4j.server.LogThrottle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RecordSizeGuard - bounds the records a TCP peer may send (RFC 5531 section 11, record
 * marking) before oncrpc4j's record parser buffers them.
 *
 * <p>oncrpc4j's {@code RpcMessageParserTCP} keeps every byte of a record until its last
 * fragment arrives, whatever size the fragment headers claim, so one connection could make the
 * server hold gigabytes. This filter sits just before that parser, reads the fragment headers
 * as the bytes stream past (it copies and keeps nothing), and closes a connection whose record
 * grows beyond {@link #MAX_RECORD_BYTES}: what Linux's svc does with a record beyond its
 * largest message ({@code svc_tcp_read_marker}: "fragment too large"). No legitimate call is
 * that large: the largest NFS WRITE our programs and nfs4j accept is 1 MiB.
 *
 * <p>Grizzly hands a connection's reads to the chain one at a time, in order, so the
 * per-connection {@link Marker} sees the stream's bytes exactly once each.
 */
public final class RecordSizeGuard extends BaseFilter {

    /** The largest record (all fragments of one RPC message) a peer may send: 8 MiB. */
    public static final int MAX_RECORD_BYTES = 8 << 20;

    private static final Logger LOG = LoggerFactory.getLogger(RecordSizeGuard.class);

    private final Attribute<Marker> markerOfConnection =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(RecordSizeGuard.class.getName() + ".marker");
    private final AtomicLong refused = new AtomicLong();
    private final LogThrottle refusalLog = new LogThrottle();

    /** Where one connection's stream stands between fragment headers. */
    static final class Marker {
        /** Bytes of the current fragment header read so far (0 to 3) and their value. */
        private int headerBytes;
        private int header;
        /** Bytes of the current fragment still to pass. */
        private long fragmentLeft;
        /** Whether the current fragment is its record's last. */
        private boolean lastFragment;
        /** The size of the record so far: its fragments' claimed sizes. */
        private long recordBytes;

        /**
         * follow() - walk a chunk of the stream.
         *
         * @return the size the current record claims when it exceeds {@code limit}, else -1
         */
        long follow(Buffer chunk, long limit) {
            int at = chunk.position();
            int end = chunk.limit();
            while (at < end) {
                if (fragmentLeft > 0) {
                    int pass = (int) Math.min(fragmentLeft, end - at);
                    at += pass;
                    fragmentLeft -= pass;
                    endRecordIfComplete();
                    continue;
                }
                header = header << 8 | (chunk.get(at++) & 0xff);
                if (++headerBytes < Integer.BYTES) {
                    continue;
                }
                headerBytes = 0;
                lastFragment = header < 0;
                fragmentLeft = header & 0x7fff_ffff;
                recordBytes += fragmentLeft;
                if (recordBytes > limit) {
                    return recordBytes;
                }
                endRecordIfComplete();
            }
            return -1;
        }

        private void endRecordIfComplete() {
            if (fragmentLeft == 0 && lastFragment) {
                recordBytes = 0;
                lastFragment = false;
            }
        }
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        Object message = ctx.getMessage();
        if (!(message instanceof Buffer chunk)) {
            return ctx.getInvokeAction();
        }
        Connection<?> connection = ctx.getConnection();
        Marker marker = markerOfConnection.get(connection);
        if (marker == null) {
            marker = new Marker();
            markerOfConnection.set(connection, marker);
        }
        long claimed = marker.follow(chunk, MAX_RECORD_BYTES);
        if (claimed < 0) {
            return ctx.getInvokeAction();
        }
        refused.incrementAndGet();
        logRefusal(connection, claimed);
        connection.closeSilently();
        return ctx.getStopAction();
    }

    /** Connections closed for a record beyond {@link #MAX_RECORD_BYTES}. */
    public long refusedRecords() {
        return refused.get();
    }

    /** One line per 10 seconds at most: a hostile peer must not flood the log. */
    private void logRefusal(Connection<?> connection, long claimed) {
        if (refusalLog.admit() < 0) {
            return;
        }
        LOG.warn("Closing the TCP connection from {}: its RPC record claims {} bytes or more, beyond the largest "
                + "accepted ({} bytes; {} such connections closed since start; next such line in 10 s at the "
                + "earliest)", connection.getPeerAddress(), claimed, MAX_RECORD_BYTES, refused.get());
    }
}
