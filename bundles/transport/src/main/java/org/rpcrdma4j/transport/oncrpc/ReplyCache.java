package org.rpcrdma4j.transport.oncrpc;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * ReplyCache - a duplicate request cache for RPC over RDMA: a retransmitted call (same client
 * address, xid, length and checksum of its first bytes) is not executed again. While the first
 * copy is still running the retransmission is dropped; once it has been answered, the cached RPC
 * reply is sent again.
 *
 * <p>What is cached is the RPC reply message and where its DDP-eligible item lies, never the
 * transport header: the retransmission arrives with its own write list and reply chunk (usually
 * on a new connection, after a reconnect), and the reply is framed for those. Caching the header
 * would send the first copy's chunk list to the retransmission's (differently registered) memory.
 *
 * <p>Bounded: at most {@code entries} entries, least recently used first out; replies longer than
 * {@code maxReplyBytes} are not kept (their entry is removed when they are sent, so their
 * retransmission runs again: the large replies, READ and READDIR, are idempotent). The key
 * ignores the client's port: an RDMA reconnect usually comes from a new one.
 *
 * <p>Threading: safe from any thread (one lock, held briefly).
 */
final class ReplyCache {
    /** How many leading bytes of a call the checksum covers (the RPC header and the arguments' start). */
    static final int CHECKSUM_BYTES = 512;

    private final int maxReplyBytes;
    private final boolean enabled;
    private final LinkedHashMap<Key, Entry> map;

    /**
     * @param entries most entries kept; 0 disables the cache
     * @param maxReplyBytes longest reply kept
     */
    ReplyCache(int entries, int maxReplyBytes) {
        this.maxReplyBytes = maxReplyBytes;
        this.enabled = entries > 0;
        this.map = new LinkedHashMap<>(Math.max(16, Math.min(entries, 4096)), 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
                return size() > entries;
            }
        };
    }

    /** The key of a call. */
    record Key(InetAddress client, int xid, int length, int checksum) {
        static Key of(InetAddress client, int xid, byte[] call) {
            return of(client, xid, List.of(ByteBuffer.wrap(call)), call.length);
        }

        /** The key of a call whose body lies in views (in XDR order), read in place. */
        static Key of(InetAddress client, int xid, List<ByteBuffer> body, int length) {
            CRC32C crc = new CRC32C();
            int left = CHECKSUM_BYTES;
            for (int i = 0; i < body.size() && left > 0; i++) {
                ByteBuffer view = body.get(i).duplicate();
                if (view.remaining() > left) {
                    view.limit(view.position() + left);
                }
                left -= view.remaining();
                crc.update(view);
            }
            return new Key(client, xid, length, (int) crc.getValue());
        }
    }

    /**
     * An entry: a call in progress (no reply yet), or, once {@link #complete} replaced it, the
     * answered call's reply. Immutable, so what {@link #begin} returned stays what it was.
     */
    static final class Entry {
        private static final Entry IN_PROGRESS = new Entry(null, -1);

        private final byte[] reply;
        private final int ddpItemOffset;

        private Entry(byte[] reply, int ddpItemOffset) {
            this.reply = reply;
            this.ddpItemOffset = ddpItemOffset;
        }

        /** @return whether the call was answered: send {@link #reply()} again; else it still runs: drop the copy */
        boolean isAnswered() {
            return reply != null;
        }

        /** @return a read-only view of the cached reply */
        ByteBuffer reply() {
            return ByteBuffer.wrap(reply).asReadOnlyBuffer();
        }

        int ddpItemOffset() {
            return ddpItemOffset;
        }
    }

    /** @return whether calls are cached at all */
    boolean isEnabled() {
        return enabled;
    }

    /**
     * begin() - look a call up, recording it as in progress when it is new.
     *
     * @return null for a new call (now in progress: execute it), else the entry of its earlier
     *         copy: answered (send its reply again) or still running (drop this one)
     */
    synchronized Entry begin(Key key) {
        Entry earlier = map.get(key);
        if (earlier == null) {
            map.put(key, Entry.IN_PROGRESS);
        }
        return earlier;
    }

    /**
     * complete() - the call was answered: keep a copy of its reply, or forget the call when the
     * reply is too long to keep.
     */
    synchronized void complete(Key key, ByteBuffer reply, int ddpItemOffset) {
        if (map.get(key) == null) {
            return;
        }
        if (reply.remaining() > maxReplyBytes) {
            map.remove(key);
            return;
        }
        byte[] copy = new byte[reply.remaining()];
        reply.get(reply.position(), copy);
        map.put(key, new Entry(copy, ddpItemOffset));
    }

    /** forget() - the call got no reply (dropped, garbage): a retransmission runs it again. */
    synchronized void forget(Key key) {
        if (map.get(key) == Entry.IN_PROGRESS) {
            map.remove(key);
        }
    }

    /** @return entries held (answered or in progress) */
    synchronized int size() {
        return map.size();
    }
}
