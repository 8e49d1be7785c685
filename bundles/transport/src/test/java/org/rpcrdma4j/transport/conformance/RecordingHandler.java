package org.rpcrdma4j.transport.conformance;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.RpcCallHandler;

/**
 * RecordingHandler - keeps every call it is given, unreleased, for the test to check and release,
 * and the xids of the backward replies it was given or told were refused.
 */
public final class RecordingHandler implements RpcCallHandler {
    private final ConcurrentLinkedQueue<ReceivedCall> calls = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Integer> backwardReplies = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Integer> refusedReplies = new ConcurrentLinkedQueue<>();

    @Override
    public void onCall(ReceivedCall call) {
        calls.add(call);
    }

    @Override
    public void onBackchannelReply(RdmaConnection connection, int xid, ByteBuffer rpcReply) {
        backwardReplies.add(xid);
    }

    @Override
    public void onBackchannelReplyRefused(RdmaConnection connection, int xid, String reason) {
        refusedReplies.add(xid);
    }

    /** @return the xids of the backward replies handed on since the last take, in arrival order */
    public List<Integer> takeBackwardReplies() {
        return drain(backwardReplies);
    }

    /** @return the xids of the backward replies refused since the last take, in arrival order */
    public List<Integer> takeRefusedReplies() {
        return drain(refusedReplies);
    }

    private static List<Integer> drain(ConcurrentLinkedQueue<Integer> queue) {
        List<Integer> taken = new ArrayList<>();
        Integer xid;
        while ((xid = queue.poll()) != null) {
            taken.add(xid);
        }
        return taken;
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
