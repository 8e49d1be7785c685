package org.rpcrdma4j.transport.internal.common;

/**
 * BoundedPool - a free list of reusable per-call objects of one connection (a reply's context, a
 * call's oncrpc4j transport), made lazily and kept up to a bound.
 *
 * <p>{@link #acquire()} hands out a free object, or makes one while fewer than {@code capacity}
 * exist; beyond that it makes one that does not belong to the pool (its factory is told so with a
 * null pool), which the collector takes when it is done: correct, only not free of allocation.
 * An object made for the pool comes back through {@link #release}, once per acquire.
 *
 * <p>Threading: any thread (taken on the completion loop, given back by a worker or the loop); a
 * short lock that is almost never contended, and no allocation once warm.
 *
 * @param <T> the pooled objects
 */
public final class BoundedPool<T> {
    /** Makes the pool's objects. */
    @FunctionalInterface
    public interface Factory<T> {
        /**
         * @param home the pool the object returns to, or null for one made beyond its bound
         * @return a new object
         */
        T make(BoundedPool<T> home);
    }

    private final Factory<T> factory;
    private final Object[] free;
    private int freeCount;
    private int created;

    /**
     * @param capacity the most objects the pool makes and keeps, at least 1
     * @param factory makes them
     */
    public BoundedPool(int capacity, Factory<T> factory) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " must be positive");
        }
        this.factory = factory;
        this.free = new Object[capacity];
    }

    /** @return a free object, made when the pool has none yet (outside the pool beyond its capacity) */
    public T acquire() {
        synchronized (this) {
            if (freeCount > 0) {
                @SuppressWarnings("unchecked")
                T object = (T) free[--freeCount];
                free[freeCount] = null;
                return object;
            }
            if (created < free.length) {
                created++;
                return factory.make(this);
            }
        }
        return factory.make(null);
    }

    /**
     * release() - an object of this pool whose work is finished comes back.
     *
     * @throws IllegalStateException when the pool is full already (a double release)
     */
    public synchronized void release(T object) {
        if (freeCount == free.length) {
            throw new IllegalStateException(object + " returned to a full pool");
        }
        free[freeCount++] = object;
    }

    /** @return objects made for this pool so far */
    public synchronized int created() {
        return created;
    }

    /** @return objects in the pool, not in use */
    public synchronized int available() {
        return freeCount;
    }

    /** @return the most objects the pool makes and keeps */
    public int capacity() {
        return free.length;
    }
}
