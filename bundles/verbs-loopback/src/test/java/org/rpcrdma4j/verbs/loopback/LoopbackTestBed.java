package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.ConnectedPair;
import org.rpcrdma4j.verbs.conformance.PairOptions;
import org.rpcrdma4j.verbs.conformance.Side;
import org.rpcrdma4j.verbs.MemoryRegion;

/**
 * A fabric (deterministic unless opened threaded) with one connected pair, for exact step-by-step
 * tests. Owns both; close releases them.
 */
final class LoopbackTestBed implements AutoCloseable {
    final LoopbackFabric fabric;
    final ConnectedPair pair;
    final Side client;
    final Side server;
    private final WorkCompletion[] polled = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};

    private LoopbackTestBed(LoopbackFabric fabric, PairOptions options) throws Exception {
        this.fabric = fabric;
        try {
            this.pair = ConnectedPair.open(new LoopbackFixture(fabric), options);
        } catch (Exception | Error e) {
            fabric.close();
            throw e;
        }
        this.client = pair.client();
        this.server = pair.server();
    }

    static LoopbackTestBed open(PairOptions options) throws Exception {
        return new LoopbackTestBed(LoopbackFabric.deterministic(), options);
    }

    /** @return a bed on a threaded fabric: it drives itself, the test only posts and polls */
    static LoopbackTestBed openThreaded(PairOptions options) throws Exception {
        return new LoopbackTestBed(LoopbackFabric.threaded(), options);
    }

    static LoopbackTestBed open(DeviceCapabilities capabilities, PairOptions options) throws Exception {
        return new LoopbackTestBed(LoopbackFabric.builder().capabilities(capabilities).build(), options);
    }

    /** Posts a one-SGE receive on the server. */
    void serverReceive(MemoryRegion region, int index, int length, long id) throws VerbsException {
        server.queuePair().postReceive(new ReceiveWorkRequest(1).buffer(region, index, length).id(id));
    }

    /** Posts a one-SGE SEND from the client. */
    void clientSend(MemoryRegion region, int length, long id, int flags) throws VerbsException {
        client.queuePair().postSend(new SendWorkRequest(1).reset(SendOpcode.SEND, id, flags).addSge(region, 0, length));
    }

    /** Polls at most one completion; returns it (reused object) or null. */
    WorkCompletion pollOne(CompletionQueue queue) throws VerbsException {
        return queue.poll(polled, 1) == 1 ? polled[0] : null;
    }

    @Override
    public void close() throws Exception {
        try {
            pair.close();
        } finally {
            fabric.close();
        }
    }
}
