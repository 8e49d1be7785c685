package org.rpcrdma4j.codec;

import java.util.Random;

/**
 * HeaderMutator - test utility that derives malformed inputs from valid headers.
 *
 * <p>Mutations are those that find decoder bugs in practice: bit flips,
 * "interesting" words (0, 1, boundaries, values whose product with a segment
 * size wraps 32 bits), truncation, count inflation, splicing words from
 * another header, duplicating or deleting word ranges (which shifts every
 * list boundary), and repeating a read item (which drives the read-list counts
 * and grouping to their limits). The work buffer is reused; nothing is allocated per input.
 */
final class HeaderMutator {

    private static final int[] INTERESTING = {
        0, 1, 2, 3, 4, 5, 8, 16, 24, 28, 1024, 4096, 65536, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xffff_fffc,
        0x1000_0000, 0x1000_0001, 0x0fff_ffff, 0x4000_0000, 0x4000_0001, 0x2000_0000,
    };

    private final Random random;
    private final byte[][] corpus;
    private final byte[] work;
    private final byte[] scratch;
    private int length;

    HeaderMutator(long seed, byte[][] corpus, int capacity) {
        this.random = new Random(seed);
        this.corpus = corpus;
        this.work = new byte[capacity];
        this.scratch = new byte[capacity];
    }

    byte[] work() {
        return work;
    }

    int length() {
        return length;
    }

    /** next() - pick a corpus header and apply one to four mutations; returns the new length. */
    int next() {
        byte[] seed = corpus[random.nextInt(corpus.length)];
        System.arraycopy(seed, 0, work, 0, seed.length);
        length = seed.length;
        int mutations = 1 + random.nextInt(4);
        for (int i = 0; i < mutations; i++) {
            mutateOnce();
        }
        return length;
    }

    private void mutateOnce() {
        switch (random.nextInt(9)) {
            case 0 -> flipBit();
            case 1 -> setInterestingWord();
            case 2 -> truncate();
            case 3 -> inflateCount();
            case 4 -> spliceFromAnother();
            case 5 -> duplicateWords();
            case 6 -> deleteWords();
            case 7 -> repeatFirstReadItem();
            default -> setRandomByte();
        }
    }

    private void flipBit() {
        if (length > 0) {
            int bit = random.nextInt(length * 8);
            work[bit >>> 3] ^= (byte) (1 << (bit & 7));
        }
    }

    private void setRandomByte() {
        if (length > 0) {
            work[random.nextInt(length)] = (byte) random.nextInt(256);
        }
    }

    private void setInterestingWord() {
        if (length >= 4) {
            putWord(randomWordIndex(), INTERESTING[random.nextInt(INTERESTING.length)]);
        }
    }

    private void truncate() {
        length = random.nextInt(length + 1);
    }

    /** inflateCount() - grow a small word (a discriminator, count or length) by a small or huge step. */
    private void inflateCount() {
        if (length < 4) {
            return;
        }
        int at = randomWordIndex();
        for (int tries = 0; tries < 8 && Integer.compareUnsigned(getWord(at), 64) > 0; tries++) {
            at = randomWordIndex();
        }
        int[] steps = {1, 2, 3, 16, 255, 0x1000_0000, 0x0fff_fff0, random.nextInt()};
        putWord(at, getWord(at) + steps[random.nextInt(steps.length)]);
    }

    /** spliceFromAnother() - overwrite or insert a word range taken from another corpus header. */
    private void spliceFromAnother() {
        byte[] other = corpus[random.nextInt(corpus.length)];
        int otherWords = other.length / 4;
        if (otherWords == 0) {
            return;
        }
        int from = random.nextInt(otherWords);
        int count = 1 + random.nextInt(Math.min(12, otherWords - from));
        int at = random.nextInt(length / 4 + 1) * 4;
        if (random.nextBoolean()) {
            insertGap(at, count * 4);
        }
        int bytes = Math.min(count * 4, work.length - at);
        System.arraycopy(other, from * 4, work, at, Math.max(0, bytes));
        length = Math.max(length, at + Math.max(0, bytes));
    }

    private void duplicateWords() {
        int words = length / 4;
        if (words == 0) {
            return;
        }
        int from = random.nextInt(words);
        int count = 1 + random.nextInt(Math.min(30, words - from));
        int at = random.nextInt(words + 1) * 4;
        int bytes = Math.min(count * 4, work.length - length);
        if (bytes <= 0) {
            return;
        }
        System.arraycopy(work, from * 4, scratch, 0, bytes);
        insertGap(at, bytes);
        System.arraycopy(scratch, 0, work, at, bytes);
    }

    /** repeatFirstReadItem() - grow the read list by copies of its first item (counts, grouping, limits). */
    private void repeatFirstReadItem() {
        int itemBytes = Xdr.wordsToBytes(RpcRdma.DISCRIMINATOR_WORDS + RpcRdma.READ_SEGMENT_WORDS);
        int at = RpcRdma.BODY_OFFSET;
        if (length < at + itemBytes || getWord(at) != RpcRdma.ITEM_PRESENT) {
            return;
        }
        System.arraycopy(work, at, scratch, 0, itemBytes);
        for (int copies = 1 + random.nextInt(24); copies > 0 && length + itemBytes <= work.length; copies--) {
            insertGap(at, itemBytes);
            System.arraycopy(scratch, 0, work, at, itemBytes);
        }
    }

    private void deleteWords() {
        int words = length / 4;
        if (words == 0) {
            return;
        }
        int from = random.nextInt(words);
        int count = 1 + random.nextInt(Math.min(12, words - from));
        System.arraycopy(work, (from + count) * 4, work, from * 4, length - (from + count) * 4);
        length -= count * 4;
    }

    /** insertGap() - open {@code bytes} at {@code at}, dropping what would pass the capacity. */
    private void insertGap(int at, int bytes) {
        int keep = Math.min(length - at, work.length - at - bytes);
        if (keep > 0) {
            System.arraycopy(work, at, work, at + bytes, keep);
        }
        length = Math.min(work.length, length + bytes);
    }

    private int randomWordIndex() {
        return random.nextInt(length / 4) * 4;
    }

    private int getWord(int at) {
        return (work[at] & 0xff) << 24 | (work[at + 1] & 0xff) << 16 | (work[at + 2] & 0xff) << 8 | (work[at + 3] & 0xff);
    }

    private void putWord(int at, int value) {
        work[at] = (byte) (value >>> 24);
        work[at + 1] = (byte) (value >>> 16);
        work[at + 2] = (byte) (value >>> 8);
        work[at + 3] = (byte) value;
    }
}
