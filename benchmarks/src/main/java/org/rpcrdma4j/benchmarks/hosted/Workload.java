package org.rpcrdma4j.benchmarks.hosted;

import java.nio.ByteBuffer;
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

    private Workload(String name, int inFlight, Supplier<ByteBuffer> call, byte[] results, int ddpBytes) {
        this.name = name;
        this.calls = new ByteBuffer[inFlight];
        for (int i = 0; i < inFlight; i++) {
            calls[i] = call.get();
        }
        this.results = results;
        this.replyLength = BenchRpc.REPLY_HEADER_BYTES + results.length;
        this.firstResult = results.length == 0 ? -1 : ByteBuffer.wrap(results).getInt(0);
        this.ddpBytes = ddpBytes;
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

    int inFlight() {
        return calls.length;
    }

    @Override
    public String toString() {
        return name;
    }
}
