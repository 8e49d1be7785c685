package org.rpcrdma4j.binding.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.Xdr;

/**
 * Which NFS replies the duplicate request cache keeps: knfsd's table for v3; NFSv4.0 COMPOUNDs,
 * but not NFSv4.1 and later ones (their session's slot table replays them).
 */
class IdempotencyTest {
    private final NfsUpperLayerBinding binding = new NfsUpperLayerBinding();

    @Test
    void nfsV3CachesExactlyTheProceduresKnfsdCaches() {
        // RFC 1813 numbers: SETATTR 2, WRITE 7, CREATE 8, MKDIR 9, SYMLINK 10, MKNOD 11, REMOVE 12,
        // RMDIR 13, RENAME 14, LINK 15, COMMIT 21.
        Set<Integer> cached = Set.of(2, 7, 8, 9, 10, 11, 12, 13, 14, 15, 21);
        for (int procedure = 0; procedure <= 21; procedure++) {
            assertEquals(cached.contains(procedure), binding.isNonIdempotent(3, procedure), "NFSv3 procedure " + procedure);
        }
        assertEquals(false, binding.isNonIdempotent(3, 22), "beyond the table");
        assertEquals(false, binding.isNonIdempotent(3, -1));
        assertEquals(false, binding.isNonIdempotent(3, 40));
    }

    @Test
    void nfsV4CachesCompoundsButNotNull() {
        assertEquals(true, binding.isNonIdempotent(4, 1));
        assertEquals(false, binding.isNonIdempotent(4, 0));
    }

    @Test
    void nfsV41CompoundsAreLeftToTheSessionSlotTableAndV40OnesAreCached() {
        for (String tag : new String[] {"", "a", "tag4", "linux-nfs-client-tag"}) {
            assertEquals(true, isCached(compoundArguments(tag, 0)), "minor version 0, tag '" + tag + "'");
            assertEquals(false, isCached(compoundArguments(tag, 1)), "minor version 1, tag '" + tag + "'");
            assertEquals(false, isCached(compoundArguments(tag, 2)), "minor version 2, tag '" + tag + "'");
        }
        ByteBuffer split = compoundArguments("abcde", 1);
        ByteBuffer first = split.duplicate().limit(6);
        ByteBuffer second = split.duplicate().position(6);
        assertEquals(false, binding.isNonIdempotent(4, 1, List.of(first, second), split.remaining(), 0),
                "read across the views of a call that spans receive buffer and read chunk");
    }

    @Test
    void aCompoundWhoseMinorVersionCannotBeReadIsCached() {
        ByteBuffer v41 = compoundArguments("tag", 1);
        assertEquals(true, binding.isNonIdempotent(4, 1, List.of(v41), v41.remaining(), -1), "no arguments offset");
        assertEquals(true, binding.isNonIdempotent(4, 1, List.of(v41), v41.remaining() - 5, 0), "minor version cut off");
        ByteBuffer hugeTag = ByteBuffer.allocate(12).putInt(0, 1025).putInt(8, 1);
        assertEquals(true, binding.isNonIdempotent(4, 1, List.of(hugeTag), 12, 0), "tag beyond NFS4_OPAQUE_LIMIT");
        ByteBuffer negativeTag = ByteBuffer.allocate(12).putInt(0, -4).putInt(8, 1);
        assertEquals(true, binding.isNonIdempotent(4, 1, List.of(negativeTag), 12, 0), "tag length with the top bit");
    }

    @Test
    void theArgumentsDoNotChangeWhatOtherCallsGet() {
        ByteBuffer v41 = compoundArguments("tag", 1);
        assertEquals(false, binding.isNonIdempotent(4, 0, List.of(v41), v41.remaining(), 0), "NFSv4 NULL");
        assertEquals(true, binding.isNonIdempotent(3, 7, List.of(v41), v41.remaining(), 0), "NFSv3 WRITE");
        assertEquals(false, binding.isNonIdempotent(3, 6, List.of(v41), v41.remaining(), 0), "NFSv3 READ");
    }

    private boolean isCached(ByteBuffer arguments) {
        return binding.isNonIdempotent(4, 1, List.of(arguments), arguments.remaining(), 0);
    }

    /** COMPOUND4args' start: tag, minorversion, then one operation number (OP_SEQUENCE 53). */
    private static ByteBuffer compoundArguments(String tag, int minorVersion) {
        byte[] bytes = tag.getBytes(StandardCharsets.UTF_8);
        int tagEnd = Xdr.UNIT_BYTES + (int) Xdr.roundUp(bytes.length);
        ByteBuffer b = ByteBuffer.allocate(tagEnd + 8);
        b.putInt(bytes.length).put(bytes).position(tagEnd);
        b.putInt(minorVersion).putInt(53);
        return b.flip();
    }
}
