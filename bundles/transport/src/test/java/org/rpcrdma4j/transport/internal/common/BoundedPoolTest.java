package org.rpcrdma4j.transport.internal.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** BoundedPoolTest - the lazily filled, bounded free list of a connection's per-call objects. */
class BoundedPoolTest {
    /** A pooled object that remembers the pool it returns to. */
    private record Item(int serial, BoundedPool<Item> home) {
    }

    private final List<Item> made = new ArrayList<>();
    private final BoundedPool<Item> pool = new BoundedPool<>(2, home -> {
        Item item = new Item(made.size(), home);
        made.add(item);
        return item;
    });

    @Test
    void objectsAreMadeLazilyAndReusedOnceReturned() {
        assertEquals(0, pool.created(), "nothing made up front");
        Item a = pool.acquire();
        assertEquals(1, pool.created());
        assertSame(pool, a.home());
        pool.release(a);
        assertEquals(1, pool.available());
        assertSame(a, pool.acquire(), "the returned object is handed out again");
        assertEquals(1, made.size(), "nothing new was made");
        assertEquals(0, pool.available());
    }

    @Test
    void beyondItsBoundThePoolMakesObjectsThatAreNotItsOwn() {
        Item a = pool.acquire();
        Item b = pool.acquire();
        Item extra = pool.acquire();
        assertEquals(2, pool.created(), "the bound");
        assertSame(pool, b.home());
        assertNull(extra.home(), "made outside the pool: the collector takes it");
        pool.release(a);
        pool.release(b);
        assertEquals(2, pool.available());
        assertNotSame(extra, pool.acquire());
    }

    @Test
    void aReleaseIntoAFullPoolIsRefused() {
        Item a = pool.acquire();
        Item b = pool.acquire();
        pool.release(a);
        pool.release(b);
        assertThrows(IllegalStateException.class, () -> pool.release(a), "a double release");
        assertEquals(2, pool.available());
    }

    @Test
    void aPoolHoldsAtLeastOne() {
        assertThrows(IllegalArgumentException.class, () -> new BoundedPool<Item>(0, home -> null));
        assertEquals(2, pool.capacity());
    }
}
