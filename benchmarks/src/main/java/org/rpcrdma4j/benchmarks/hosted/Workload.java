package org.rpcrdma4j.benchmarks.hosted;

import java.nio.ByteBuffer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Workload - what one benchmark invocation sends: {@code calls.length} calls in flight at once
 * (the same message in each slot, with its own xid), the whole RPC reply length each must get,
 * its first result word, and for READ the size of the DDP item the client offers a write chunk for.
 *
 * <p>Ownership: the message buffers belong to the workload; a channel writes their xids and MUST
 * NOT send a buffer again before its previous call was answered.
 */
final class Workload {
    final String name;
    final ByteBuffer[] calls;
    /** Results the byte-exact check expects after the reply header. */
    final byte[] results;
    /** Length of the whole RPC reply (header and results, DDP item included). */
    final int replyLength;
    /** The first result word (an opaque's length), or -1 for a void result. */
    final int firstResult;
    /** Bytes of the reply's DDP item a write chunk is offered for, 0 for none. */
    final int ddpBytes;
    /**
     * What changes in a call before each send besides its xid (an NFSv4.1 SEQUENCE's sequence
     * id); nothing for most workloads.
     */
    final Consumer<ByteBuffer> beforeSend;
    /**
     * Whether the DDP item is the reply's last item (an NFSv4 COMPOUND ending in READ) rather than
     * right after the first result word (BenchProgram's READ): where a client puts the write
     * chunk's bytes back.
     */
    final boolean itemLast;
    /**
     * Bytes of the call's data a client moves into a read chunk (an NFS WRITE's, pulled by the
     * server with RDMA READ), 0 for none; they start at {@link BenchRpc#WRITE_DATA_OFFSET}.
     */
    final int callItemBytes;

    private Workload(String name, int inFlight, Supplier<ByteBuffer> call, byte[] results, int ddpBytes) {
        this(name, inFlight, call, results, ddpBytes, 0);
    }

    private Workload(String name, int inFlight, Supplier<ByteBuffer> call, byte[] results, int ddpBytes,
            int callItemBytes) {
        this.name = name;
        this.calls = new ByteBuffer[inFlight];
        for (int i = 0; i < inFlight; i++) {
            calls[i] = call.get();
        }
        this.results = results;
        this.replyLength = BenchRpc.RESULTS_OFFSET + results.length;
        this.firstResult = results.length == 0 ? -1 : ByteBuffer.wrap(results).getInt(0);
        this.ddpBytes = ddpBytes;
        this.beforeSend = call0 -> { };
        this.itemLast = false;
        this.callItemBytes = callItemBytes;
    }

    /**
     * A workload of another program's calls, one at a time, checked by length and first result
     * word only (no byte-exact expected results); its DDP item, if any, is the reply's last.
     *
     * @param replyLength the whole RPC reply's length (DDP item included)
     * @param beforeSend what to change in the call before each send, besides its xid
     */
    static Workload single(String name, ByteBuffer call, int replyLength, int firstResult, int ddpBytes,
            Consumer<ByteBuffer> beforeSend) {
        return new Workload(name, 1, () -> call, replyLength, firstResult, ddpBytes, beforeSend);
    }

    /**
     * A workload of another program's calls, {@code inFlight} at once, each slot's message made by
     * {@code call} and changed by {@code beforeSend} before every send (a READ's offset); checked
     * by length and first result word; its DDP item, if any, is the reply's last.
     *
     * @param replyLength the whole RPC reply's length (DDP item included)
     */
    static Workload repeated(String name, int inFlight, Supplier<ByteBuffer> call, int replyLength, int firstResult,
            int ddpBytes, Consumer<ByteBuffer> beforeSend) {
        return new Workload(name, inFlight, call, replyLength, firstResult, ddpBytes, beforeSend);
    }

    private Workload(String name, int inFlight, Supplier<ByteBuffer> call, int replyLength, int firstResult,
            int ddpBytes, Consumer<ByteBuffer> beforeSend) {
        this.name = name;
        this.calls = new ByteBuffer[inFlight];
        for (int i = 0; i < inFlight; i++) {
            calls[i] = call.get();
        }
        this.results = null;
        this.replyLength = replyLength;
        this.firstResult = firstResult;
        this.ddpBytes = ddpBytes;
        this.beforeSend = beforeSend;
        this.itemLast = true;
        this.callItemBytes = 0;
    }

    /** @return NULL calls, {@code inFlight} at once */
    static Workload nullCalls(int inFlight) {
        return new Workload("NULL x" + inFlight, inFlight, BenchRpc::nullCall, new byte[0], 0);
    }

    /** @return ECHO calls of {@code size} bytes, {@code inFlight} at once */
    static Workload echoCalls(int size, int inFlight) {
        byte[] data = BenchRpc.pattern(size);
        return new Workload("ECHO " + size + " x" + inFlight, inFlight, () -> BenchRpc.echoCall(data), BenchRpc.opaqueResults(data),
                0);
    }

    /** @return READ calls of {@code size} bytes, {@code inFlight} at once, the data offered a write chunk */
    static Workload readCalls(int size, int inFlight) {
        return new Workload("READ " + size + " x" + inFlight, inFlight, () -> BenchRpc.readCall(size),
                BenchRpc.opaqueResults(BenchRpc.pattern(size)), size);
    }

    /** @return WRITE calls of {@code size} bytes, {@code inFlight} at once, the data in a read chunk over RDMA */
    static Workload writeCalls(int size, int inFlight) {
        byte[] data = BenchRpc.pattern(size);
        return new Workload("WRITE " + size + " x" + inFlight, inFlight, () -> BenchRpc.writeCall(data),
                ByteBuffer.allocate(4).putInt(size).array(), 0, size);
    }

    int inFlight() {
        return calls.length;
    }

    @Override
    public String toString() {
        return name;
    }
}
