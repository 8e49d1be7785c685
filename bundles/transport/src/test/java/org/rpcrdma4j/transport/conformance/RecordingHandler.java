package org.rpcrdma4j.transport.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.RpcCallHandler;

/** RecordingHandler - keeps every call it is given, unreleased, for the test to check and release. */
public final class RecordingHandler implements RpcCallHandler {
    private final ConcurrentLinkedQueue<ReceivedCall> calls = new ConcurrentLinkedQueue<>();

    @Override
    public void onCall(ReceivedCall call) {
        calls.add(call);
    }

    /** @return the calls received since the last take, in arrival order */
    public List<ReceivedCall> takeAll() {
        List<ReceivedCall> taken = new ArrayList<>();
        ReceivedCall c;
        while ((c = calls.poll()) != null) {
            taken.add(c);
        }
        return taken;
    }

    /** @return the number of calls waiting */
    public int size() {
        return calls.size();
    }
}
