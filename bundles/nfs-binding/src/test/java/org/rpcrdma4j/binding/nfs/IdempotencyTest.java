package org.rpcrdma4j.binding.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;

import org.junit.jupiter.api.Test;

/** Which NFS replies the duplicate request cache keeps: knfsd's table for v3, every v4 COMPOUND. */
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
}
