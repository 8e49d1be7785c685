package org.rpcrdma4j.nfs3.internal;

import org.dcache.oncrpc4j.rpc.OncRpcException;

/**
 * GarbageArguments - the arguments of a call do not decode as the procedure's XDR type (a
 * length out of range, an unknown union discriminant, a string that is not UTF-8). The
 * dispatchers answer GARBAGE_ARGS.
 */
public final class GarbageArguments extends OncRpcException {

    private static final long serialVersionUID = 1L;

    /** A decoding failure described by the message. */
    public GarbageArguments(String message) {
        super(message);
    }
}
