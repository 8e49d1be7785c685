package org.rpcrdma4j.transport.internal.sendto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.internal.common.PoolShare;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/** StagingSlabTest - the first-fit extent allocator of the reply staging slab. */
class StagingSlabTest {
    private static final int CAPACITY = 64 * 1024;

    private static StagingSlab staging() throws Exception {
        LoopbackFabric fabric = LoopbackFabric.deterministic();
        ProtectionDomain pd = fabric.provider().devices().get(0).allocateProtectionDomain();
        return new StagingSlab(pd, CAPACITY);
    }

    @Test
    void extentsAreAlignedDisjointAndFreedExtentsCoalesce() throws Exception {
        StagingSlab s = staging();
        int a = s.allocate(100);
        int b = s.allocate(CAPACITY / 2);
        int c = s.allocate(1);
        assertEquals(0, a % StagingSlab.ALIGNMENT);
        assertEquals(0, b % StagingSlab.ALIGNMENT);
        assertTrue(a + 128 <= b && b + CAPACITY / 2 <= c, "disjoint: " + a + ", " + b + ", " + c);
        assertEquals(-1, s.allocate(CAPACITY / 2), "no room for a second half now");
        s.free(b, CAPACITY / 2);
        s.free(a, 100);
        assertEquals(0, s.allocate(CAPACITY / 2), "the freed neighbours merged into one extent from 0");
        s.free(0, CAPACITY / 2);
        s.free(c, 1);
        assertEquals(0, s.allocated());
        assertEquals(0, s.allocate(CAPACITY), "everything merged back into the whole slab");
    }

    @Test
    void randomAllocationsNeverOverlapAndAllComeBack() throws Exception {
        StagingSlab s = staging();
        Random random = new Random(42);
        List<int[]> live = new ArrayList<>();
        for (int round = 0; round < 20_000; round++) {
            if (!live.isEmpty() && (random.nextBoolean() || live.size() > 40)) {
                int[] e = live.remove(random.nextInt(live.size()));
                s.free(e[0], e[1]);
            } else {
                int length = 1 + random.nextInt(4096);
                int at = s.allocate(length);
                if (at >= 0) {
                    for (int[] other : live) {
                        int end = at + length;
                        int otherEnd = other[0] + other[1];
                        assertTrue(end <= other[0] || otherEnd <= at, "overlap at round " + round);
                    }
                    live.add(new int[] {at, length});
                }
            }
        }
        live.forEach(e -> s.free(e[0], e[1]));
        assertEquals(0, s.allocated());
        assertEquals(0, s.allocate(CAPACITY));
    }

    @Test
    void aRefusedAllocationLeavesItsReasonOnTheAccount() throws Exception {
        StagingSlab s = staging();
        PoolShare.Account alone = s.openAccount(Long.MAX_VALUE);
        assertEquals(0, s.allocate(alone, CAPACITY / 2));
        assertEquals(PoolShare.Verdict.ADMIT, alone.verdict());
        assertEquals(-1, s.allocate(alone, CAPACITY / 2), "past three quarters of the slab");
        assertEquals(PoolShare.Verdict.OVER_SHARE, alone.verdict());
        PoolShare.Account other = s.openAccount(Long.MAX_VALUE);
        int x = s.allocate(other, CAPACITY / 4);
        assertEquals(CAPACITY / 2, x);
        assertEquals(-1, s.allocate(other, CAPACITY / 2), "the slab has a quarter left");
        assertEquals(PoolShare.Verdict.POOL_EMPTY, other.verdict());
        s.free(alone, 0, CAPACITY / 2);
        s.free(other, x, CAPACITY / 4);
        assertEquals(0, s.allocated());
    }
}
