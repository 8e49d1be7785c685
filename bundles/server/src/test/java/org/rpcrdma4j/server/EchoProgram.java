package org.rpcrdma4j.server;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/**
 * A test program: NULL, ECHO of an opaque, and procedures that fail in each way a program
 * can, so tests can check the answer each failure gets.
 */
final class EchoProgram implements RpcDispatchable {

    static final int PROGRAM = 0x2000_0101;
    static final int VERSION = 1;

    static final int PROC_NULL = 0;
    static final int PROC_ECHO = 1;
    static final int PROC_THROW_RUNTIME = 2;
    static final int PROC_THROW_IO = 4;
    /** Throws {@link #error}: a program that fails with an {@link Error}. */
    static final int PROC_THROW_ERROR = 5;

    /** What PROC_THROW_ERROR throws. */
    volatile Error error = new AssertionError("program assertion on purpose");
    /** The thread that ran the last call. */
    volatile Thread lastThread;

    final AtomicInteger calls = new AtomicInteger();

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        calls.incrementAndGet();
        lastThread = Thread.currentThread();
        switch (call.getProcedure()) {
            case PROC_NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case PROC_ECHO -> {
                XdrOpaque argument = new XdrOpaque();
                call.retrieveCall(argument);
                call.reply(argument);
            }
            case PROC_THROW_RUNTIME -> throw new IllegalStateException("program bug on purpose");
            case PROC_THROW_IO -> throw new IOException("I/O failure on purpose");
            case PROC_THROW_ERROR -> throw error;
            default -> call.failProcedureUnavailable();
        }
    }
}
