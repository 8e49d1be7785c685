package org.rpcrdma4j.transport.internal.sendto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.internal.common.PoolShare;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/** StagingSlabTest - the first-fit extent allocator of the reply staging slab. */
class StagingSlabTest {
    private static final int CAPACITY = 64 * 1024;

    private static final int UNIT = StagingSlab.ALIGNMENT;
    private static final int K4 = 4096;

    private static StagingSlab staging() throws Exception {
        return staging(CAPACITY);
    }

    private static StagingSlab staging(int capacity) throws Exception {
        LoopbackFabric fabric = LoopbackFabric.deterministic();
        ProtectionDomain pd = fabric.provider().devices().get(0).allocateProtectionDomain();
        return new StagingSlab(pd, capacity);
    }

    /** @return a slab holding four 4 KiB extents at 0, 4, 8 and 12 KiB, free from 16 KiB on */
    private static StagingSlab fourExtents() throws Exception {
        StagingSlab s = staging();
        for (int i = 0; i < 4; i++) {
            assertEquals(i * K4, s.allocate(K4));
        }
        return s;
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

    @Test
    void anExtentBetweenAllocatedOnesStaysAHoleOfItsOwn() throws Exception {
        StagingSlab s = fourExtents();
        s.free(K4, K4);
        assertEquals(4 * K4, s.allocate(K4 + 1), "the hole of 4 KiB merged with nothing");
        assertEquals(K4, s.allocate(K4), "and is there whole");
        assertEquals(5 * K4 + UNIT, s.allocated());
    }

    @Test
    void anExtentMergesWithItsFreeLeftNeighbour() throws Exception {
        StagingSlab s = fourExtents();
        s.free(0, K4);
        s.free(K4, K4);
        assertEquals(0, s.allocate(2 * K4), "[0, 8 KiB) is one extent");
        assertEquals(4 * K4, s.allocated());
        assertEquals(4 * K4, s.allocate(1), "nothing was left at 8 KiB");
    }

    @Test
    void anExtentMergesWithItsFreeRightNeighbour() throws Exception {
        StagingSlab s = fourExtents();
        s.free(2 * K4, K4);
        s.free(K4, K4);
        assertEquals(K4, s.allocate(2 * K4), "[4 KiB, 12 KiB) is one extent");
        assertEquals(4 * K4, s.allocate(1));
    }

    @Test
    void anExtentMergesWithTheFreeRestOfTheSlab() throws Exception {
        StagingSlab s = fourExtents();
        s.free(3 * K4, K4);
        assertEquals(3 * K4, s.allocate(CAPACITY - 3 * K4), "the last extent merged with the never used rest");
        assertEquals(CAPACITY, s.allocated());
        assertEquals(-1, s.allocate(1));
    }

    @Test
    void anExtentMergesWithBothFreeNeighbours() throws Exception {
        StagingSlab s = fourExtents();
        s.free(0, K4);
        s.free(2 * K4, K4);
        s.free(K4, K4);
        assertEquals(0, s.allocate(3 * K4), "[0, 12 KiB) is one extent");
        assertEquals(4 * K4, s.allocate(1));
        s.free(0, 3 * K4);
        s.free(3 * K4, K4);
        s.free(4 * K4, 1);
        assertEquals(0, s.allocated());
        assertEquals(0, s.allocate(CAPACITY), "all three merges left one extent");
    }

    @Test
    void aDoubleFreeIsRefusedAndLeavesTheSlabIntact() throws Exception {
        StagingSlab s = fourExtents();
        s.free(K4, K4);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.free(K4, K4));
        assertTrue(e.getMessage().contains("offset " + K4), e.getMessage());
        s.free(2 * K4, K4);
        assertThrows(IllegalStateException.class, () -> s.free(2 * K4, K4), "freed twice after merging left");
        assertThrows(IllegalStateException.class, () -> s.free(K4, 2 * K4), "overlaps a free extent");
        assertEquals(2 * K4, s.allocated());
        s.free(0, K4);
        s.free(3 * K4, K4);
        assertThrows(IllegalStateException.class, () -> s.free(0, K4), "inside the whole free slab");
        assertEquals(0, s.allocated());
        assertEquals(0, s.allocate(CAPACITY));
    }

    @Test
    void aFreeOfSomethingNeverAllocatedIsRefused() throws Exception {
        StagingSlab s = fourExtents();
        assertThrows(IllegalStateException.class, () -> s.free(K4, 2 * K4), "another length");
        assertThrows(IllegalStateException.class, () -> s.free(K4, UNIT), "a shorter length");
        assertThrows(IllegalStateException.class, () -> s.free(K4 + UNIT, UNIT), "inside an extent");
        assertThrows(IllegalStateException.class, () -> s.free(K4 + 1, 1), "not aligned");
        assertThrows(IllegalStateException.class, () -> s.free(-UNIT, UNIT), "before the slab");
        assertThrows(IllegalStateException.class, () -> s.free(CAPACITY, UNIT), "past the slab");
        assertThrows(IllegalStateException.class, () -> s.free(3 * K4, CAPACITY), "running past the slab");
        assertThrows(IllegalStateException.class, () -> s.free(8 * K4, K4), "in the free rest");
        assertEquals(4 * K4, s.allocated());
        s.free(K4, K4 - UNIT + 1);
        assertEquals(3 * K4, s.allocated(), "any length of the same aligned size is the extent's");
    }

    @Test
    void aCapacityOfPartialUnitsLeavesItsTailUnused() throws Exception {
        StagingSlab s = staging(100 * UNIT + 10);
        assertEquals(100 * UNIT, s.capacity(), "the largest extent there can be");
        assertEquals(0, s.allocate(100 * UNIT));
        assertEquals(-1, s.allocate(1));
        s.free(0, 100 * UNIT);
        assertEquals(-1, s.allocate(100 * UNIT + 1));
        assertEquals(0, staging(UNIT - 1).capacity());
        assertEquals(-1, staging(UNIT - 1).allocate(1));
    }

    @Test
    void allocationsMatchAFirstFitModelOfUnits() throws Exception {
        checkAgainstModel(CAPACITY, CAPACITY / 8, 45, 1);
        checkAgainstModel((24 << 20) + 5 * UNIT + 10, (24 << 20) / 8, 45, 2);
        checkAgainstModel((2 << 20) + 7, 4096, 30, 3);
    }

    /**
     * checkAgainstModel() - random allocations and frees, each allocation checked against first
     * fit over a bitmap of units in use: the same offset (so -1 exactly when no run is long
     * enough), aligned, inside the slab, over no live extent. Sizes are 1..{@code largest}; a
     * live extent is freed, chosen at random, in {@code freePercent} of the rounds.
     */
    private static void checkAgainstModel(int capacity, int largest, int freePercent, long seed) throws Exception {
        StagingSlab s = staging(capacity);
        int units = capacity / UNIT;
        BitSet used = new BitSet(units);
        Random random = new Random(seed);
        List<int[]> live = new ArrayList<>();
        int refused = 0;
        for (int round = 0; round < 5_000; round++) {
            if (!live.isEmpty() && random.nextInt(100) < freePercent) {
                int[] e = live.remove(random.nextInt(live.size()));
                s.free(e[0], e[1]);
                used.clear(e[0] / UNIT, (e[0] + e[1] + UNIT - 1) / UNIT);
            } else {
                int length = 1 + random.nextInt(largest);
                int n = (length + UNIT - 1) / UNIT;
                int at = s.allocate(length);
                assertEquals(firstFit(used, units, n), at, "round " + round + ", " + length + " bytes");
                if (at < 0) {
                    refused++;
                    continue;
                }
                assertEquals(0, at % UNIT, "aligned");
                assertTrue(at + length <= s.capacity(), "inside the slab");
                assertEquals(-1, nextSet(used, at / UNIT, at / UNIT + n), "over no live extent");
                used.set(at / UNIT, at / UNIT + n);
                live.add(new int[] {at, length});
            }
            assertEquals(used.cardinality() * UNIT, s.allocated(), "round " + round);
        }
        assertTrue(refused > 0 && live.size() > 1, "the slab filled up now and then: " + refused);
        while (!live.isEmpty()) {
            int[] e = live.remove(random.nextInt(live.size()));
            s.free(e[0], e[1]);
        }
        assertEquals(0, s.allocated());
        assertEquals(0, s.allocate(s.capacity()), "everything merged back into the whole slab");
    }

    /** @return the first unit of the lowest run of {@code n} free units, in bytes, or -1 */
    private static int firstFit(BitSet used, int units, int n) {
        for (int i = used.nextClearBit(0); i < units; i = used.nextClearBit(i)) {
            int end = used.nextSetBit(i);
            end = end < 0 || end > units ? units : end;
            if (end - i >= n) {
                return i * UNIT;
            }
            i = end;
        }
        return -1;
    }

    private static int nextSet(BitSet used, int from, int to) {
        int i = used.nextSetBit(from);
        return i >= 0 && i < to ? i : -1;
    }

    @Test
    void theUnitBitmapFindsNextAndPreviousMembersAcrossItsLevels() {
        Random random = new Random(7);
        for (int bits : new int[] {1, 63, 64, 65, 4095, 4097, 262_145}) {
            StagingSlab.UnitBitmap bitmap = new StagingSlab.UnitBitmap(bits);
            BitSet model = new BitSet(bits);
            assertEquals(-1, bitmap.next(0));
            assertEquals(-1, bitmap.previous(bits - 1));
            for (int round = 0; round < 3_000; round++) {
                int unit = random.nextInt(bits);
                if (random.nextInt(3) == 0) {
                    bitmap.clear(unit);
                    model.clear(unit);
                } else {
                    bitmap.set(unit);
                    model.set(unit);
                }
                int probe = random.nextInt(bits);
                int next = model.nextSetBit(probe);
                assertEquals(next, bitmap.next(probe), bits + " bits, next from " + probe);
                assertEquals(model.previousSetBit(probe), bitmap.previous(probe), bits + " bits, previous from " + probe);
                assertEquals(model.get(probe), bitmap.get(probe));
            }
            assertEquals(model.nextSetBit(0), bitmap.next(0));
            assertEquals(-1, bitmap.next(bits));
            assertEquals(model.previousSetBit(bits - 1), bitmap.previous(bits - 1));
            assertEquals(-1, bitmap.previous(-1));
            model.stream().forEach(bitmap::clear);
            assertEquals(-1, bitmap.next(0));
            assertFalse(bitmap.get(0));
        }
    }
}
