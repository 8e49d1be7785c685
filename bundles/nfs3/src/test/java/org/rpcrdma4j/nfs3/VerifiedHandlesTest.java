package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs3.internal.FileHandle;
import org.rpcrdma4j.nfs3.internal.NfsException;
import org.rpcrdma4j.nfs3.internal.VerifiedHandles;
import org.rpcrdma4j.nfs3.localfs.ServerKey;

/**
 * The handle check's verdict cache: a remembered handle is accepted without its MAC, and
 * nothing else is - not a forged handle, not one of another key - and the cache stays bounded.
 */
class VerifiedHandlesTest {

    @TempDir
    Path state;

    private ServerKey key() throws IOException {
        return ServerKey.loadOrCreate(state.resolve("key"));
    }

    private static byte[] handle(ServerKey key, long fileid) {
        return new FileHandle(Nfs3.NF3REG, 0x1234, 42, fileid).encode(key);
    }

    private static void assertBadHandle(VerifiedHandles handles, byte[] bytes, String what) {
        NfsException e = assertThrows(NfsException.class, () -> handles.verify(bytes), what);
        assertEquals(Nfs3.NFS3ERR_BADHANDLE, e.status(), what);
    }

    @Test
    void aVerifiedHandleIsAnsweredFromTheCache() throws Exception {
        VerifiedHandles handles = new VerifiedHandles(key());
        byte[] bytes = handle(key(), 7);
        FileHandle first = handles.verify(bytes);
        assertEquals(new FileHandle(Nfs3.NF3REG, 0x1234, 42, 7), first);
        assertSame(first, handles.verify(bytes.clone()), "the same bytes again: the cached verdict");
        assertEquals(1, handles.size());
    }

    @Test
    void noChangedByteOfACachedHandleIsAccepted() throws Exception {
        VerifiedHandles handles = new VerifiedHandles(key());
        byte[] valid = handle(key(), 7);
        handles.verify(valid);
        for (int i = 0; i < FileHandle.BYTES; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] forged = valid.clone();
                forged[i] ^= (byte) (1 << bit);
                assertBadHandle(handles, forged, "byte " + i + " bit " + bit + " flipped");
            }
        }
        assertEquals(1, handles.size(), "no forged handle was remembered");
        handles.verify(valid);
    }

    @Test
    void aForgedHandleForAnotherObjectInTheSameSlotIsRefused() throws Exception {
        VerifiedHandles handles = new VerifiedHandles(key());
        byte[] valid = handle(key(), 7);
        handles.verify(valid);
        // Another object, with the valid handle's MAC: the same slot, all bytes but the fileid equal.
        byte[] forged = handle(key(), 8);
        System.arraycopy(valid, 24, forged, 24, 16);
        assertBadHandle(handles, forged, "the MAC of another handle");
        // Then the same with only the MAC's tail changed: still the cached handle's slot.
        byte[] tail = valid.clone();
        tail[FileHandle.BYTES - 1] ^= 1;
        assertBadHandle(handles, tail, "the last MAC byte changed");
    }

    @Test
    void aHandleOfAnotherKeyIsRefusedThoughAnotherCacheHoldsIt() throws Exception {
        ServerKey old = key();
        VerifiedHandles before = new VerifiedHandles(old);
        byte[] bytes = handle(old, 7);
        before.verify(bytes);
        VerifiedHandles after = new VerifiedHandles(ServerKey.loadOrCreate(state.resolve("new-key")));
        assertBadHandle(after, bytes, "a handle of the old key under the new one");
        assertEquals(0, after.size());
    }

    @Test
    void manyDistinctHandlesKeepTheCacheBounded() throws Exception {
        ServerKey key = key();
        VerifiedHandles handles = new VerifiedHandles(key);
        for (long fileid = 0; fileid < 4L * VerifiedHandles.SLOTS; fileid++) {
            handles.verify(handle(key, fileid));
        }
        assertTrue(handles.size() <= VerifiedHandles.SLOTS, handles.size() + " entries");
        // And a flood of forged handles takes no slot at all.
        VerifiedHandles fresh = new VerifiedHandles(key);
        Random random = new Random(33);
        for (int i = 0; i < 4 * VerifiedHandles.SLOTS; i++) {
            byte[] forged = handle(key, i);
            random.nextBytes(forged);
            forged[0] = FileHandle.VERSION;
            forged[2] = 0;
            forged[3] = 0;
            assertBadHandle(fresh, forged, "random MAC " + i);
        }
        assertEquals(0, fresh.size());
    }

    @Test
    void concurrentCheckersNeverAcceptAForgedHandle() throws Exception {
        ServerKey key = key();
        VerifiedHandles handles = new VerifiedHandles(key);
        List<byte[]> valid = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            valid.add(handle(key, i));
        }
        AtomicInteger accepted = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                done.add(threads.submit(() -> {
                    Random random = new Random(seed);
                    for (int n = 0; n < 20_000; n++) {
                        byte[] bytes = valid.get(random.nextInt(valid.size())).clone();
                        boolean forge = random.nextBoolean();
                        if (forge) {
                            bytes[4 + random.nextInt(FileHandle.BYTES - 4)] ^= (byte) (1 + random.nextInt(255));
                        }
                        try {
                            handles.verify(bytes);
                            if (forge) {
                                accepted.incrementAndGet();
                            }
                        } catch (NfsException e) {
                            if (!forge) {
                                throw new AssertionError("a valid handle was refused", e);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(0, accepted.get(), "forged handles accepted");
    }
}
