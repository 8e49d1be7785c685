package org.rpcrdma4j.server;

import java.io.IOException;
import java.nio.channels.CompletionHandler;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcException;
import org.dcache.oncrpc4j.rpc.RpcMessageType;
import org.dcache.oncrpc4j.rpc.RpcRejectStatus;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.BadXdrOncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns received ONC RPC messages into oncrpc4j calls and runs them on the worker executor.
 *
 * <p>This is what oncrpc4j's {@code RpcProtocolFilter} and {@code RpcDispatcher} do for its
 * own TCP and UDP services, rebuilt for transports that are not Grizzly filter chains
 * (RPC-over-RDMA), with the same answers, so a program gives identical results over every
 * transport:
 * <ul>
 * <li>before oncrpc4j decodes anything, {@link RpcHeaderCheck} walks the header, since
 *     oncrpc4j allocates whatever length the peer claims: a call too short to name its procedure
 *     is dropped; one whose credential or verifier is malformed (a body beyond 400 bytes or
 *     beyond the message, an AUTH_SYS machine name beyond 255 bytes, more than 16 gids, fields
 *     that do not fill the body) is rejected with AUTH_ERROR, AUTH_BADCRED (AUTH_BADVERF for the
 *     verifier), as Linux's svc does since "sunrpc: handle SVC_GARBAGE during svc auth processing
 *     as auth error" (an accepted GARBAGE_ARGS is no option: oncrpc4j encodes it with the
 *     verifier of the decoded credential, which there is none of). Both are counted
 *     ({@link #malformedCalls()}) and logged at most once per 10 seconds;</li>
 * <li>an RPC header that {@link RpcCall#accept()} refuses (RPC version, authentication) is
 *     rejected with the status it names;</li>
 * <li>no program for (program, version): PROG_UNAVAIL;</li>
 * <li>the program throws {@link RpcException}: rejected with its status;
 *     {@link OncRpcException} or another {@link IOException}: GARBAGE_ARGS;
 *     any other runtime failure: SYSTEM_ERR, logged with its stack trace (which never
 *     reaches the client);</li>
 * <li>the program throws an {@link Error} (StackOverflowError, AssertionError, LinkageError,
 *     even OutOfMemoryError): SYSTEM_ERR as well, counted ({@link #programErrorCalls()}) and
 *     logged with its stack trace the first time each program version does so (later ones at
 *     debug level). The Error is not rethrown: it costs that call, never the thread that ran
 *     it (a completion-loop thread or a worker) nor the call's transport resources. When even
 *     the SYSTEM_ERR cannot be sent, {@link #serve} says so
 *     ({@link Outcome#FAILED_UNANSWERED}) and the transport drops the call.</li>
 * </ul>
 * A message of type REPLY (a backchannel reply to a call this host made through the
 * transport) goes to the transport's reply queue.
 *
 * <p>Threading: {@link #receive} may be called from any thread, typically a transport's
 * completion thread; it never blocks and never runs program code itself.
 */
public final class RpcCallDispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(RpcCallDispatcher.class);

    /** What became of one received message, for the transport's statistics. */
    public enum Outcome {
        /** A call handed to its program on a worker thread. */
        DISPATCHED,
        /** A call for a program or version the host does not serve: answered PROG_UNAVAIL. */
        PROGRAM_UNAVAILABLE,
        /** A call whose RPC header was refused (version, credentials): answered with a reject. */
        REJECTED,
        /** A message too short or malformed to have an RPC header: dropped, logged. */
        GARBAGE,
        /** The worker executor refused the call (shutting down, saturated): answered SYSTEM_ERR. */
        OVERLOADED,
        /** A backchannel reply matched to its pending call. */
        REPLY_DELIVERED,
        /** A backchannel reply with no pending call: dropped. */
        REPLY_UNMATCHED,
        /**
         * A call whose program failed and whose SYSTEM_ERR could not be sent either (the
         * failure struck again while answering): unanswered, the transport MUST drop it and
         * release what it holds.
         */
        FAILED_UNANSWERED
    }

    /**
     * Where calls run: {@code execute} queues {@code task} behind the calls of the connection
     * {@code connection} stands for (compared by identity).
     */
    @FunctionalInterface
    public interface Workers {
        /** @throws RejectedExecutionException when the call cannot be queued (shut down, or the connection's bound) */
        void execute(Object connection, Runnable task);
    }

    private final ProgramTable programs;
    private final Workers workers;
    private final LongAdder dispatched = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder programErrors = new LongAdder();
    /** Program versions (program << 32 | version) whose Error was logged with its stack trace. */
    private final Set<Long> programErrorsLogged = ConcurrentHashMap.newKeySet();
    private final LongAdder malformed = new LongAdder();
    /** AUTH_SYS credentials decoded once and kept by their bytes. */
    private final AuthSysCredentials credentials = new AuthSysCredentials();
    /*
     * One throttle per kind of event a peer can cause at will: at most one line per 10 s each.
     */
    private final LogThrottle malformedLog = new LogThrottle();
    private final LogThrottle droppedMessageLog = new LogThrottle();
    private final LogThrottle rejectedCallLog = new LogThrottle();
    private final LogThrottle unmatchedReplyLog = new LogThrottle();
    private final LogThrottle programRejectLog = new LogThrottle();
    private final LogThrottle garbageArgumentsLog = new LogThrottle();
    private final LogThrottle programFailureLog = new LogThrottle();
    private final LogThrottle refusedCallLog = new LogThrottle();

    /**
     * @param programs the live program table calls are looked up in
     * @param workers where program code runs, with no regard to connections; the caller owns it
     *        and shuts it down
     */
    public RpcCallDispatcher(ProgramTable programs, Executor workers) {
        this(programs, executorOf(workers));
    }

    /**
     * @param programs the live program table calls are looked up in
     * @param workers where program code runs, per connection; the caller owns it and shuts it down
     */
    public RpcCallDispatcher(ProgramTable programs, Workers workers) {
        this.programs = Objects.requireNonNull(programs, "programs");
        this.workers = Objects.requireNonNull(workers, "workers");
    }

    private static Workers executorOf(Executor executor) {
        Objects.requireNonNull(executor, "workers");
        return (connection, task) -> executor.execute(task);
    }

    /** The live table of programs served. */
    public ProgramTable programs() {
        return programs;
    }

    /**
     * Handles one complete RPC message (one record) received by {@code transport}.
     *
     * <p>Assumptions: {@code xdr} holds exactly the message, positioned at its first byte,
     * not yet in decoding mode. Ownership of {@code xdr} passes to the call: the program's
     * reply is encoded into a fresh {@code Xdr} by oncrpc4j and sent through
     * {@link RpcTransport#send}.
     */
    public Outcome receive(Xdr xdr, RpcTransport transport) {
        return receive(xdr, transport, false);
    }

    /**
     * serve() - as {@link #receive}, but decodes the RPC header and runs the program on the
     * calling thread: for a transport that already handed the message to a thread of
     * {@link #execute} (one hand-off per call, as an nfsd thread takes a request from svcrdma).
     * A program that throws is answered as in {@link #receive}.
     */
    public Outcome serve(Xdr xdr, RpcTransport transport) {
        return receive(xdr, transport, true);
    }

    /**
     * execute() - run a transport's task on the workers (then {@link #serve} inside it), queued
     * behind the calls of the same connection; connections are served in turn.
     *
     * @param connection what identifies the call's connection (compared by identity)
     * @throws RejectedExecutionException when the workers refuse (shutting down, or the
     *         connection has as many calls waiting as it may)
     */
    public void execute(Object connection, Runnable task) {
        workers.execute(connection, task);
    }

    private Outcome receive(Xdr xdr, RpcTransport transport, boolean onThisThread) {
        final int xid;
        final int messageType;
        final int start;
        try {
            xdr.beginDecoding();
            start = xdr.asBuffer().position();
            xid = xdr.xdrDecodeInt();
            messageType = xdr.xdrDecodeInt();
        } catch (BadXdrOncRpcException e) {
            long held = droppedMessageLog.admit();
            if (held >= 0) {
                LOG.info("Dropping an RPC message from {} too short for an RPC header: {}{}",
                        transport.getRemoteSocketAddress(), e.getMessage(), LogThrottle.held(held));
            }
            return Outcome.GARBAGE;
        }
        switch (messageType) {
            case RpcMessageType.CALL:
                return receiveCall(xid, xdr, start, transport, onThisThread);
            case RpcMessageType.REPLY:
                return receiveReply(xid, xdr, start, transport);
            default:
                long held = droppedMessageLog.admit();
                if (held >= 0) {
                    LOG.info("Dropping an RPC message from {} with unknown message type {} (xid {}){}",
                            transport.getRemoteSocketAddress(), messageType, Integer.toUnsignedString(xid),
                            LogThrottle.held(held));
                }
                return Outcome.GARBAGE;
        }
    }

    private Outcome receiveCall(int xid, Xdr xdr, int start, RpcTransport transport, boolean onThisThread) {
        Buffer message = xdr.asBuffer();
        RpcHeaderCheck.Fault fault = RpcHeaderCheck.checkCall(message, start);
        if (fault != RpcHeaderCheck.Fault.NONE) {
            return refuseMalformed(new RpcCall(xid, xdr, transport), fault, message.limit() - start);
        }
        RpcCall call = credentials.accept(xid, xdr, message, start, transport);
        if (call == null) {
            call = new RpcCall(xid, xdr, transport);
            Outcome refused = accept(call, xid, transport);
            if (refused != null) {
                return refused;
            }
            credentials.remember(call, message, start);
        }
        if (onThisThread) {
            RpcDispatchable program = programs.lookup(call.getProgram(), call.getProgramVersion());
            if (program == null) {
                call.failProgramUnavailable();
                return Outcome.PROGRAM_UNAVAILABLE;
            }
            dispatched.increment();
            return runProgram(program, call) ? Outcome.DISPATCHED : Outcome.FAILED_UNANSWERED;
        }
        return dispatch(call);
    }

    /**
     * accept() - oncrpc4j's decode of a call's header from the RPC version on (a header
     * {@link RpcHeaderCheck} passed).
     *
     * @return null when accepted; else what became of the call (rejected, answered; or dropped)
     */
    private Outcome accept(RpcCall call, int xid, RpcTransport transport) {
        try {
            call.accept();
        } catch (RpcException e) {
            long held = rejectedCallLog.admit();
            if (held >= 0) {
                LOG.info("Rejecting call {} from {}: {}{}", Integer.toUnsignedString(xid),
                        transport.getRemoteSocketAddress(), e.getMessage(), LogThrottle.held(held));
            }
            call.reject(e.getStatus(), e.getRpcReply());
            return Outcome.REJECTED;
        } catch (IOException e) {
            long held = droppedMessageLog.admit();
            if (held >= 0) {
                LOG.info("Dropping call {} from {} with an undecodable RPC header: {}{}",
                        Integer.toUnsignedString(xid), transport.getRemoteSocketAddress(), e.getMessage(),
                        LogThrottle.held(held));
            }
            return Outcome.GARBAGE;
        }
        return null;
    }

    /**
     * refuseMalformed() - a call whose header {@link RpcHeaderCheck} refused: answered AUTH_ERROR
     * when the header up to the procedure is sound, else dropped; counted either way. Public for
     * transports that dispatch through oncrpc4j itself and check headers before it decodes
     * them (the oncrpc4j TCP service's {@code RpcHeaderCheckFilter}).
     *
     * @param call the call, not decoded beyond its xid
     * @param fault what {@link RpcHeaderCheck#checkCall} found
     * @param length the message's length, for the log
     * @return {@link Outcome#REJECTED} or {@link Outcome#GARBAGE} (dropped)
     */
    public Outcome refuseMalformed(RpcCall call, RpcHeaderCheck.Fault fault, int length) {
        malformed.increment();
        boolean answered = fault != RpcHeaderCheck.Fault.TRUNCATED && fault != RpcHeaderCheck.Fault.WRONG_MESSAGE_TYPE;
        logMalformed(call, fault, length, answered);
        if (!answered) {
            return Outcome.GARBAGE;
        }
        call.reject(RpcRejectStatus.AUTH_ERROR, new RpcAuthError(fault.authStat()));
        return Outcome.REJECTED;
    }

    /**
     * refusedMalformedReply() - counts and logs a backward-direction reply whose header
     * {@link RpcHeaderCheck#checkReply} refused, for transports that fail its caller themselves.
     */
    public void refusedMalformedReply(int xid, Object from, RpcHeaderCheck.Fault fault) {
        malformed.increment();
        if (malformedLog.admit() >= 0) {
            LOG.warn("Failing the call waiting for reply {} from {}: {} ({} malformed RPC headers since start; next such "
                    + "line in 10 s at the earliest)", Integer.toUnsignedString(xid), from, fault.description(),
                    malformed.sum());
        }
    }

    /** logMalformed() - one line per 10 seconds at most: a hostile peer must not flood the log. */
    private void logMalformed(RpcCall call, RpcHeaderCheck.Fault fault, int length, boolean answered) {
        if (malformedLog.admit() < 0) {
            return;
        }
        LOG.warn("{} call {} ({} bytes) from {}: {} ({} malformed RPC headers since start; next such line in 10 s at the "
                + "earliest)", answered ? "Rejecting" : "Dropping", Integer.toUnsignedString(call.getXid()), length,
                call.getTransport().getRemoteSocketAddress(), fault.description(), malformed.sum());
    }

    /**
     * Runs an accepted call's program on a worker thread, with oncrpc4j's error mapping.
     */
    public Outcome dispatch(RpcCall call) {
        RpcDispatchable program = programs.lookup(call.getProgram(), call.getProgramVersion());
        if (program == null) {
            call.failProgramUnavailable();
            return Outcome.PROGRAM_UNAVAILABLE;
        }
        try {
            workers.execute(call.getTransport(), () -> runProgram(program, call));
        } catch (RejectedExecutionException e) {
            long held = refusedCallLog.admit();
            if (held >= 0) {
                LOG.warn("Worker pool refused call {}: {}{}", call, e.toString(), LogThrottle.held(held));
            }
            call.failRpcSystem();
            return Outcome.OVERLOADED;
        }
        dispatched.increment();
        return Outcome.DISPATCHED;
    }

    /**
     * runProgram() - run the program on this thread with oncrpc4j's error mapping; nothing it
     * throws escapes.
     *
     * @return false when the program failed and even its error reply could not be sent (the
     *         caller's transport drops the call); true otherwise
     */
    private boolean runProgram(RpcDispatchable program, RpcCall call) {
        try {
            program.dispatchOncRpcCall(call);
        } catch (RpcException e) {
            failed.increment();
            call.reject(e.getStatus(), e.getRpcReply());
            long held = programRejectLog.admit();
            if (held >= 0) {
                LOG.warn("Call {} rejected by its program: {}{}", call, e.getMessage(), LogThrottle.held(held));
            }
        } catch (OncRpcException e) {
            failed.increment();
            call.failRpcGarbage();
            long held = garbageArgumentsLog.admit();
            if (held >= 0) {
                LOG.warn("Call {} has undecodable arguments: {}{}", call, e.getMessage(), LogThrottle.held(held));
            }
        } catch (IOException e) {
            failed.increment();
            call.failRpcGarbage();
            long held = garbageArgumentsLog.admit();
            if (held >= 0) {
                LOG.warn("Call {} failed with an I/O error (answered GARBAGE_ARGS): {}{}", call, e.getMessage(),
                        LogThrottle.held(held));
            }
        } catch (RuntimeException e) {
            failed.increment();
            long held = programFailureLog.admit();
            if (held >= 0) {
                LOG.error("Call {} failed in its program{}", call, LogThrottle.held(held), e);
            }
            call.failRpcSystem();
        } catch (Error e) {
            failed.increment();
            programErrors.increment();
            logProgramError(call, e);
            return answerSystemError(call, e);
        } catch (Throwable e) { // a checked Throwable smuggled past javac (sneaky throw)
            failed.increment();
            long held = programFailureLog.admit();
            if (held >= 0) {
                LOG.error("Call {} failed in its program{}", call, LogThrottle.held(held), e);
            }
            return answerSystemError(call, e);
        }
        return true;
    }

    /**
     * answerSystemError() - SYSTEM_ERR for a call whose program threw {@code cause}. The
     * answer may fail in turn (an OutOfMemoryError may strike again while it is encoded):
     * then nothing is thrown either.
     *
     * @return true when answered (or the answer's own failure was reported by the transport)
     */
    private static boolean answerSystemError(RpcCall call, Throwable cause) {
        try {
            call.failRpcSystem();
            return true;
        } catch (Throwable e) {
            LOG.warn("Call {} failed with {} and its SYSTEM_ERR reply failed with {}; dropping it", call,
                    cause.getClass().getName(), e.toString());
            return false;
        }
    }

    /** logProgramError() - an Error thrown by a program: with its stack trace once per program version. */
    private void logProgramError(RpcCall call, Error e) {
        int program = call.getProgram();
        int version = call.getProgramVersion();
        if (programErrorsLogged.add((long) program << 32 | (version & 0xffff_ffffL))) {
            LOG.error("RPC program {} version {} threw {} on call {}; answering SYSTEM_ERR (later Errors of this "
                    + "program version are logged at debug level and counted)", Integer.toUnsignedString(program),
                    Integer.toUnsignedString(version), e.getClass().getName(), call, e);
        } else {
            LOG.debug("RPC program {} version {} threw {} on call {}", Integer.toUnsignedString(program),
                    Integer.toUnsignedString(version), e.getClass().getName(), call, e);
        }
    }

    private Outcome receiveReply(int xid, Xdr xdr, int start, RpcTransport transport) {
        CompletionHandler<RpcReply, RpcTransport> handler = transport.getReplyQueue().get(xid);
        if (handler == null) {
            long held = unmatchedReplyLog.admit();
            if (held >= 0) {
                LOG.info("Dropping a reply from {} with no pending call (xid {}){}",
                        transport.getRemoteSocketAddress(), Integer.toUnsignedString(xid), LogThrottle.held(held));
            }
            return Outcome.REPLY_UNMATCHED;
        }
        RpcHeaderCheck.Fault fault = RpcHeaderCheck.checkReply(xdr.asBuffer(), start);
        if (fault != RpcHeaderCheck.Fault.NONE) {
            // The caller learns at once; oncrpc4j never decodes the lengths the reply claims.
            malformed.increment();
            handler.failed(new MalformedRpcHeaderException(fault, "the reply from " + transport.getRemoteSocketAddress()
                    + " to xid " + Integer.toUnsignedString(xid)), transport);
            return Outcome.REPLY_DELIVERED;
        }
        try {
            handler.completed(new RpcReply(xid, xdr, transport), transport);
        } catch (IOException e) {
            handler.failed(e, transport);
        }
        return Outcome.REPLY_DELIVERED;
    }

    /** Calls handed to a program since this dispatcher was made. */
    public long dispatchedCalls() {
        return dispatched.sum();
    }

    /**
     * Messages whose RPC header {@link RpcHeaderCheck} refused: calls (credential or verifier
     * malformed, or too short to name a procedure) rejected with AUTH_ERROR or dropped, and
     * replies whose caller was failed with the fault.
     */
    public long malformedCalls() {
        return malformed.sum();
    }

    /** Calls accepted with an AUTH_SYS credential decoded for an earlier call ({@link AuthSysCredentials}). */
    public long callsWithKeptCredential() {
        return credentials.hits();
    }

    /** AUTH_SYS credentials decoded by oncrpc4j and kept for later calls (each a table slot taken or replaced). */
    public long credentialsKept() {
        return credentials.kept();
    }

    /** @return AUTH_SYS credentials kept now (at most {@link AuthSysCredentials#SLOTS}) */
    int credentialsKeptNow() {
        return credentials.size();
    }

    /** Calls whose program failed (rejected, garbage arguments, system error). */
    public long failedCalls() {
        return failed.sum();
    }

    /** Calls whose program threw an {@link Error} (also counted in {@link #failedCalls()}). */
    public long programErrorCalls() {
        return programErrors.sum();
    }
}
