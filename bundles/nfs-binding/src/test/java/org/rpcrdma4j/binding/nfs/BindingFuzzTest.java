package org.rpcrdma4j.binding.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.COMPOUND;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.NFS4_OK;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_LOOKUP;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_PUTFH;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_PUTROOTFH;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_SAVEFH;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.access;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.ace;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.compound;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.data;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.getattr;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.getfh;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.openHead;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.read;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.readlink;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.sequence;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.statusOnly;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.binding.nfs.support.XdrWriter;

/**
 * Randomized inputs, reproducible by seed: valid COMPOUNDs built from random results are located
 * exactly; their bit flips, word overwrites and truncations, and random bytes, never make the
 * binding throw, and every offset it returns has its item within the result.
 */
class BindingFuzzTest {
    private static final int CASES = 5000;
    /** Word values that break lengths and counts: zero, negative, huge, and multiplication wrap-arounds. */
    private static final int[] NASTY_WORDS = {0, 1, 3, -1, -4, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x40000000, 0x40000001, 0x3fffffff, 0x7ffffffc};

    private final NfsUpperLayerBinding binding = new NfsUpperLayerBinding();

    /** A valid COMPOUND4res and the offset of its item's length word. */
    private record Compound(byte[] bytes, int item, int itemLength) {
    }

    @Test
    void randomValidCompoundsAreLocatedExactly() {
        for (int seed = 0; seed < CASES; seed++) {
            Random random = new Random(seed);
            Compound compound = randomCompound(random);
            int prefix = random.nextInt(3) * 4;
            ByteBuffer buffer = frame(compound.bytes(), prefix);
            assertEquals(compound.item(), locate(4, COMPOUND, buffer, "seed " + seed), "seed " + seed);
        }
    }

    @Test
    void truncatedValidCompoundsHaveNoItemUntilTheItemIsWhole() {
        for (int seed = 0; seed < CASES; seed++) {
            Random random = new Random(seed);
            Compound compound = randomCompound(random);
            int length = random.nextInt(compound.bytes().length + 1);
            ByteBuffer truncated = ByteBuffer.wrap(compound.bytes(), 0, length).slice();
            int expected = length >= compound.item() + 4 + compound.itemLength() ? compound.item() : -1;
            assertEquals(expected, locate(4, COMPOUND, truncated, "seed " + seed), "seed " + seed + ", length " + length);
        }
    }

    @Test
    void bitFlipsAndWordOverwritesNeverThrowAndStayInRange() {
        for (int seed = 0; seed < CASES; seed++) {
            Random random = new Random(seed);
            byte[] bytes = randomCompound(random).bytes();
            int flips = 1 + random.nextInt(4);
            for (int i = 0; i < flips; i++) {
                int bit = random.nextInt(bytes.length * 8);
                bytes[bit / 8] ^= (byte) (1 << (bit % 8));
            }
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            int word = random.nextInt(bytes.length / 4) * 4;
            buffer.putInt(word, NASTY_WORDS[random.nextInt(NASTY_WORDS.length)]);
            locate(4, COMPOUND, buffer, "seed " + seed);
            locate(3, 6, buffer, "seed " + seed);
            locate(3, 5, buffer, "seed " + seed);
        }
    }

    @Test
    void randomBytesNeverThrowAndStayInRange() {
        for (int seed = 0; seed < CASES; seed++) {
            Random random = new Random(seed);
            int words = random.nextInt(64);
            ByteBuffer buffer = ByteBuffer.allocate(words * 4 + random.nextInt(4));
            for (int i = 0; i < words; i++) {
                // Mostly small words, so that counts, opcodes and statuses are often plausible.
                int value = random.nextInt(4) == 0 ? random.nextInt() : random.nextInt(4) == 0
                        ? NASTY_WORDS[random.nextInt(NASTY_WORDS.length)] : random.nextInt(60);
                buffer.putInt(i * 4, value);
            }
            buffer.position(Math.min(random.nextInt(3) * 4, buffer.capacity()));
            for (int version = 2; version <= 5; version++) {
                for (int procedure = 0; procedure <= 7; procedure++) {
                    locate(version, procedure, buffer, "seed " + seed);
                }
            }
        }
    }

    /** Calls the binding and checks the contract: no exception, -1 or an item within the result, buffer untouched. */
    private int locate(int version, int procedure, ByteBuffer buffer, String what) {
        int position = buffer.position();
        int limit = buffer.limit();
        int offset;
        try {
            offset = binding.locateReplyItem(version, procedure, buffer);
        } catch (RuntimeException e) {
            fail(what + ": threw for v" + version + " proc " + procedure, e);
            return -1;
        }
        assertEquals(position, buffer.position(), what + ": position");
        assertEquals(limit, buffer.limit(), what + ": limit");
        if (offset != -1) {
            int remaining = limit - position;
            assertTrue(offset >= 0 && offset <= remaining - 4, what + ": offset " + offset + " of " + remaining);
            int length = buffer.getInt(position + offset);
            assertTrue(length >= 0 && (long) offset + 4 + length <= remaining,
                    what + ": item of " + length + " at " + offset + " of " + remaining);
        }
        return offset;
    }

    private static ByteBuffer frame(byte[] bytes, int prefix) {
        ByteBuffer framed = ByteBuffer.allocate(prefix + bytes.length + 8);
        framed.position(prefix).put(bytes).flip().position(prefix);
        return framed;
    }

    /** A COMPOUND4res of random results the binding steps over, one READ or READLINK, and maybe results after it. */
    private static Compound randomCompound(Random random) {
        int before = random.nextInt(7);
        int after = random.nextInt(3);
        XdrWriter w = compound(NFS4_OK, new String(data(random.nextInt(12))), before + 1 + after);
        for (int i = 0; i < before; i++) {
            randomResult(w, random);
        }
        int item;
        int length = random.nextInt(300);
        if (random.nextBoolean()) {
            item = read(w, random.nextBoolean(), data(length));
        } else {
            item = readlink(w, new String(data(length)));
        }
        for (int i = 0; i < after; i++) {
            getattr(w, new int[] {random.nextInt()}, data(random.nextInt(40)));
        }
        return new Compound(w.toBytes(), item, length);
    }

    private static void randomResult(XdrWriter w, Random random) {
        switch (random.nextInt(8)) {
            case 0 -> sequence(w);
            case 1 -> statusOnly(w, new int[] {OP_PUTFH, OP_PUTROOTFH, OP_LOOKUP, OP_SAVEFH}[random.nextInt(4)]);
            case 2 -> getfh(w, data(random.nextInt(129)));
            case 3 -> access(w);
            case 4 -> getattr(w, randomBitmap(random), data(random.nextInt(200)));
            case 5 -> openHead(w, randomBitmap(random)).word(0);
            case 6 -> ace(openHead(w, randomBitmap(random)).word(1).word(1).fixed(12).bool(false), new String(data(random.nextInt(20))));
            default -> {
                int why = random.nextInt(9); // why_no_delegation4: CONTENTION (1) and RESOURCE (2) carry a bool
                openHead(w, randomBitmap(random)).word(3).word(why);
                if (why == 1 || why == 2) {
                    w.bool(random.nextBoolean());
                }
            }
        }
    }

    private static int[] randomBitmap(Random random) {
        int[] bitmap = new int[random.nextInt(4)];
        for (int i = 0; i < bitmap.length; i++) {
            bitmap[i] = random.nextInt();
        }
        return bitmap;
    }
}
