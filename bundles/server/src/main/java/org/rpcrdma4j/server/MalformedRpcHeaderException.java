package org.rpcrdma4j.server;

import java.io.IOException;

/**
 * MalformedRpcHeaderException - a peer's RPC reply whose header {@link RpcHeaderCheck} refused:
 * what the caller waiting for that reply is failed with, at once, instead of oncrpc4j decoding
 * the lengths the header claims.
 */
public final class MalformedRpcHeaderException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient RpcHeaderCheck.Fault fault;

    /**
     * @param fault what is wrong (never {@link RpcHeaderCheck.Fault#NONE})
     * @param what the message, for the exception's text (e.g. "the reply from 192.0.2.7:40001 to xid 0x1234")
     */
    public MalformedRpcHeaderException(RpcHeaderCheck.Fault fault, String what) {
        super("malformed RPC header in " + what + ": " + fault.description() + " (" + fault + ")");
        this.fault = fault;
    }

    /** @return the fault the header check found */
    public RpcHeaderCheck.Fault fault() {
        return fault;
    }
}
