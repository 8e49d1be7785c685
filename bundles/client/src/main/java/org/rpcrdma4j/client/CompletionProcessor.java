package org.rpcrdma4j.client;

import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.codec.DecodeStatus;
import org.rpcrdma4j.codec.HeaderDecoder;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The completion loop of one client: polls its completion queue, turns each received reply into
 * the outcome of its call, reposts the receives, retires sends, and lets waiting calls go out.
 *
 * <p>Per round ({@link #poll()}): receives are decoded and matched, reposted as one chain, and
 * only then do the answered calls' credits return (a grant implies our receives are there, also
 * to a caller posting from its own thread meanwhile), then waiting calls are posted, then
 * finished calls have their memory deregistered and their futures completed, last, so a callback
 * that closes the client finds nothing half done.
 *
 * <p>Threading: confined to the polling thread (the progress thread, or the caller of
 * {@link RpcRdmaClient#doWork()}); it owns the decoder, the parsed header and the receive
 * buffers between a completion and their repost.
 */
final class CompletionProcessor {
    private static final int BATCH = 16;

    private final WorkCompletion[] completions = new WorkCompletion[BATCH];
    private final List<ClientSession.Finished> finished = new ArrayList<>();
    private final HeaderDecoder decoder;
    private final ParsedHeader header;
    private final CompletionQueue completionQueue;
    private final VerbsResources resources;
    private final ReceiveRing ring;
    private final ClientSession session;
    private final ClientCounters counters;
    private final BackchannelResponder responder;

    CompletionProcessor(VerbsResources resources, ClientSession session, ClientCounters counters, BackchannelResponder responder) {
        this.responder = responder;
        for (int i = 0; i < BATCH; i++) {
            completions[i] = new WorkCompletion();
        }
        RpcRdmaLimits limits = RpcRdmaLimits.builder().maxWriteChunks(CallRequest.MAX_WRITE_CHUNKS)
                .maxSegmentsPerChunk(PreparedCall.MAX_SEGMENTS_PER_CHUNK)
                .maxWriteBytes(RpcRdmaLimits.MAX_BYTES).maxReplyBytes(RpcRdmaLimits.MAX_BYTES).build();
        this.decoder = new HeaderDecoder(limits, HeaderDecoder.Role.REQUESTER);
        this.header = new ParsedHeader(limits);
        this.completionQueue = resources.completionQueue();
        this.resources = resources;
        this.ring = resources.receiveRing();
        this.session = session;
        this.counters = counters;
    }

    /**
     * Handles the completions queued now (one batch).
     *
     * @return the number of completions handled
     * @throws VerbsException when the completion queue fails (overflow, closed)
     */
    int poll() throws VerbsException {
        int n = completionQueue.poll(completions, BATCH);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            if (!wc.isSuccess()) {
                onFailure(wc);
            } else if (ReceiveRing.isReceive(wc.id())) {
                onReceive(wc);
            } else {
                onSend(wc);
            }
        }
        if (n > 0) {
            try {
                ring.flush(resources.queuePair());
                session.postReadyAfterRepost(finished);
            } catch (VerbsException e) {
                session.fail(new ClientClosedException("reposting receives failed", e), finished);
            }
        }
        ClientSession.finish(finished);
        return n;
    }

    /**
     * Fails every call with {@code cause} (the connection went away).
     *
     * @param cause the reason
     */
    void fail(ClientClosedException cause) {
        if (responder != null) {
            responder.close();
        }
        session.fail(cause, finished);
        ClientSession.finish(finished);
    }

    private void onFailure(WorkCompletion wc) {
        String what = ReceiveRing.isReceive(wc.id()) ? "receive" : "send";
        String reason = wc.status() == CompletionStatus.WORK_REQUEST_FLUSHED ? "connection lost (" + what + " flushed)"
                : what + " failed: " + wc.status();
        session.fail(new ClientClosedException(reason), finished);
    }

    private void onSend(WorkCompletion wc) {
        if (responder != null && BackchannelResponder.isSend(wc.id())) {
            responder.sendCompleted(wc.id());
            return;
        }
        if ((wc.id() & ~0xffffffffL) != ClientSession.SEND_TAG) {
            return;
        }
        PreparedCall call = session.sendCompleted((int) wc.id());
        if (call != null) {
            finished.add(new ClientSession.Finished(call, null, null));
        }
    }

    private void onReceive(WorkCompletion wc) {
        int index = ring.indexOf(wc.id());
        try {
            DecodeStatus status = decoder.decode(ring.buffer(), ring.offsetOf(index), wc.byteCount(), header);
            if (status == DecodeStatus.TRUNCATED_FIXED_HEADER || status.isOk() && header.proc() == RpcRdma.RDMA_DONE) {
                counters.unmatchedReplies.incrementAndGet();
                return;
            }
            if (status.isOk() && BackchannelResponder.isCall(header, ring.buffer())) {
                // A backward call from the server (RFC 8167): its credit field is no forward grant.
                if (responder != null) {
                    responder.onCall(header, ring.buffer());
                } else {
                    counters.backwardCallsDropped.incrementAndGet();
                }
                return;
            }
            PreparedCall call = session.answer(header.xid(), header.credits());
            if (call == null) {
                counters.unmatchedReplies.incrementAndGet();
                return;
            }
            counters.repliesReceived.incrementAndGet();
            finished.add(outcome(status, call, wc));
        } finally {
            ring.repost(index);
        }
    }

    private ClientSession.Finished outcome(DecodeStatus status, PreparedCall call, WorkCompletion wc) {
        if (!status.isOk()) {
            counters.malformedReplies.incrementAndGet();
            return new ClientSession.Finished(call, null, new MalformedReplyException(header.xid(), status.name()));
        }
        if (header.proc() == RpcRdma.RDMA_ERROR) {
            counters.rdmaErrors.incrementAndGet();
            return new ClientSession.Finished(call, null,
                    new RdmaErrorException(header.xid(), header.errorCode(), header.versLow(), header.versHigh()));
        }
        try {
            RpcReply reply = ReplyAssembler.assemble(header, ring.buffer(), call, wc.hasInvalidatedKey(), wc.invalidatedKey());
            return new ClientSession.Finished(call, reply, null);
        } catch (MalformedReplyException e) {
            counters.malformedReplies.incrementAndGet();
            return new ClientSession.Finished(call, null, e);
        }
    }
}
