package org.rpcrdma4j.transport.internal.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** PoolShareTest - the fair-share policy of a pool the connections of one loop share. */
class PoolShareTest {
    @Test
    void aConnectionAloneKeepsAQuarterOfThePoolFreeForTheNext() {
        PoolShare pool = new PoolShare(100);
        PoolShare.Account greedy = pool.account(Long.MAX_VALUE);
        long free = 100;
        while (greedy.admit(1, free) == PoolShare.Verdict.ADMIT) {
            greedy.took(1);
            free--;
        }
        assertEquals(75, greedy.held(), "three quarters");
        assertEquals(PoolShare.Verdict.OVER_SHARE, greedy.admit(1, free));
        PoolShare.Account next = pool.account(Long.MAX_VALUE);
        assertEquals(PoolShare.Verdict.ADMIT, next.admit(25, free), "a connection holding nothing starts at once");
        next.took(25);
        assertEquals(2, pool.competitors());
        assertEquals(PoolShare.Verdict.POOL_EMPTY, next.admit(1, 0), "an empty pool is starvation, not a share wait");
    }

    @Test
    void competingConnectionsAreHeldToAnEqualPartAndWaitForTheirOwnReleases() {
        PoolShare pool = new PoolShare(120);
        PoolShare.Account a = pool.account(Long.MAX_VALUE);
        PoolShare.Account b = pool.account(Long.MAX_VALUE);
        PoolShare.Account c = pool.account(Long.MAX_VALUE);
        a.took(10);
        b.took(10);
        c.took(10);
        assertEquals(40, a.limit(), "120 / 3 competitors");
        assertEquals(PoolShare.Verdict.ADMIT, a.admit(30, 90));
        a.took(30);
        assertEquals(PoolShare.Verdict.OVER_SHARE, a.admit(1, 50), "past its part, though the pool has room");
        a.gave(30);
        assertEquals(PoolShare.Verdict.ADMIT, a.admit(1, 80), "its own release lets it go on");
        b.gave(10);
        c.gave(10);
        assertEquals(1, pool.competitors(), "only a: b and c hold nothing and wait for nothing");
    }

    @Test
    void creditsBoundAConnectionBelowItsPart() {
        PoolShare pool = new PoolShare(1000);
        PoolShare.Account small = pool.account(8);
        small.took(8);
        assertEquals(8, small.limit());
        assertEquals(PoolShare.Verdict.OVER_SHARE, small.admit(1, 992));
    }

    @Test
    void aWaitingConnectionCompetesUntilItTakesOrStopsWaiting() {
        PoolShare pool = new PoolShare(100);
        PoolShare.Account a = pool.account(Long.MAX_VALUE);
        PoolShare.Account b = pool.account(Long.MAX_VALUE);
        a.took(60);
        assertEquals(PoolShare.Verdict.POOL_EMPTY, b.admit(50, 40));
        assertEquals(2, pool.competitors());
        assertEquals(50, a.limit(), "a waiting connection shrinks the others' part");
        b.stopWaiting();
        assertEquals(1, pool.competitors());
        assertEquals(75, a.limit());
        assertThrows(IllegalStateException.class, () -> b.gave(1), "nothing held");
    }
}
