package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.concurrent.locks.Lock;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * Nfs3Dispatcher - serves one NFSv3 call: looks the procedure up in the table, decodes its
 * arguments (GARBAGE_ARGS if they are malformed), runs it and replies.
 *
 * <p>Failure mapping, in one place: an {@link NfsException} replies with its status and
 * failure arm; an IOException from the file system with the matching nfsstat3; anything else
 * with NFS3ERR_SERVERFAULT, logged here with its stack trace, which never reaches the client.
 *
 * <p>Every call runs under the service's namespace lock ({@link NfsState#namespace()}), from
 * the check of its handles to its last path-based system call: shared, or exclusive for the
 * procedures that take names away. The reply is sent after the lock is released.
 */
public final class Nfs3Dispatcher {

    private static final System.Logger LOG = System.getLogger(Nfs3Dispatcher.class.getName());

    private final NfsState state;
    private final ProcedureTable table = ProcedureTable.nfs3();

    /** A dispatcher over shared state. */
    public Nfs3Dispatcher(NfsState state) {
        this.state = state;
    }

    /** Serves a call; the reply is always sent (or the call rejected) before this returns. */
    public void dispatch(RpcCall call) {
        int number = call.getProcedure();
        if (number == Nfs3.NFSPROC3_NULL) {
            call.reply(Reply.VOID);
            return;
        }
        ProcedureTable.Entry entry = table.get(number);
        if (entry == null) {
            call.failProcedureUnavailable();
            return;
        }
        ArgumentDecoder arguments = new ArgumentDecoder(entry.procedure());
        try {
            call.retrieveCall(arguments);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "garbage arguments in " + Nfs3.procedureName(number) + ": " + e);
            call.failRpcGarbage();
            return;
        }
        call.reply(run(call, number, entry, arguments.action));
    }

    private Reply run(RpcCall call, int number, ProcedureTable.Entry entry, Procedure.Action action) {
        Lock namespace = entry.unbindsNames() ? state.namespace().writeLock() : state.namespace().readLock();
        namespace.lock();
        try {
            return action.run(new Request(state, call));
        } catch (NfsException e) {
            LOG.log(Level.DEBUG, () -> Nfs3.procedureName(number) + " failed: " + e.getMessage());
            XdrBody body = e.failureBody() != null ? e.failureBody() : entry.failureArm().body();
            return Reply.failed(e.status(), body);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, () -> Nfs3.procedureName(number) + " failed: " + e);
            return Reply.failed(Errors.statusOf(e), entry.failureArm().body());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "NFSv3 " + Nfs3.procedureName(number) + " failed unexpectedly", e);
            return Reply.failed(Nfs3.NFS3ERR_SERVERFAULT, entry.failureArm().body());
        } finally {
            namespace.unlock();
        }
    }

    /** Adapts a procedure's decode phase to oncrpc4j's {@code retrieveCall}. */
    private static final class ArgumentDecoder implements XdrAble {
        private final Procedure procedure;
        private Procedure.Action action;

        ArgumentDecoder(Procedure procedure) {
            this.procedure = procedure;
        }

        @Override
        public void xdrDecode(XdrDecodingStream in) throws IOException {
            action = procedure.decode(in);
        }

        @Override
        public void xdrEncode(XdrEncodingStream out) {
            throw new UnsupportedOperationException("arguments are decode-only");
        }
    }
}
