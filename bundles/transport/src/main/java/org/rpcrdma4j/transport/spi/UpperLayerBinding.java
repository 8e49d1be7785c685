package org.rpcrdma4j.transport.spi;

import java.nio.ByteBuffer;

/**
 * UpperLayerBinding - what RPC-over-RDMA needs to know about one RPC program (RFC 8166 §6, the
 * NFS bindings of RFC 8267): which replies may carry a DDP-eligible data item, and where that item
 * lies in an encoded reply, so the transport can move it into the client's write chunk with RDMA
 * WRITE instead of sending it inline.
 *
 * <p>A program without a binding is served with inline replies and the reply chunk only; its
 * write lists are returned unused. A binding never changes the reply's bytes: it only points into
 * them.
 *
 * <p>Discovery: in OSGi a binding is a service of this type with the service property
 * {@link #PROGRAM} equal to {@link #program()}; on the module path it is a {@link java.util.ServiceLoader}
 * provider of this interface.
 *
 * <p>Threading: implementations are stateless and safe from any thread; they run on the worker
 * thread that sends a reply. They MUST NOT throw for any content of {@code result}: a result they
 * cannot parse has no item (-1).
 */
public interface UpperLayerBinding {
    /** The service property carrying {@link #program()} on an OSGi service registration. */
    String PROGRAM = "rpc.program";

    /** @return the RPC program number this binding describes (NFS: 100003) */
    int program();

    /**
     * isDdpEligibleReply() - whether a reply to this call may carry a DDP-eligible item (NFSv3
     * READ and READLINK; an NFSv4 COMPOUND, which may hold READ or READLINK).
     *
     * @param version the call's program version
     * @param procedure the call's procedure number
     * @return true when the transport should look for an item with {@link #locateReplyItem}
     */
    boolean isDdpEligibleReply(int version, int procedure);

    /**
     * locateReplyItem() - where the first DDP-eligible item lies in an encoded procedure result.
     *
     * <p>Assumptions: {@code result} holds the procedure's result (the bytes after an accepted
     * RPC reply header with status SUCCESS) from its position to its limit. It is only read, with
     * absolute gets; its position and limit are not changed.
     *
     * @param version the call's program version
     * @param procedure the call's procedure number
     * @param result the encoded result
     * @return the offset, relative to {@code result.position()}, of the item's XDR length word
     *         (the item's bytes follow it, then its XDR round-up), or -1 when the result has no
     *         item (an error status, another operation, a result too short or malformed)
     */
    int locateReplyItem(int version, int procedure, ByteBuffer result);

    /**
     * isNonIdempotent() - whether a retransmission of this procedure must be answered from the
     * duplicate request cache rather than run again (knfsd caches the replies of CREATE, REMOVE,
     * RENAME, WRITE...; never of READ, GETATTR, LOOKUP...). Idempotent calls pay nothing for the
     * cache. Called on the completion loop for every call: MUST be cheap and allocation-free.
     *
     * @param version the program version of the call
     * @param procedure its procedure number
     * @return true to cache the reply; the default, for programs that do not say, caches every
     *         small reply
     */
    default boolean isNonIdempotent(int version, int procedure) {
        return true;
    }

    /**
     * isNonIdempotent() - as {@link #isNonIdempotent(int, int)}, for a program whose procedures
     * need the duplicate request cache or not by their arguments: an NFSv4.1 COMPOUND replays
     * through its session's slot table (RFC 8881 section 2.10.6), an NFSv4.0 one has nothing of the
     * kind. The transport asks this one; the default answers by the procedure alone. Same rules:
     * on the completion loop for every call, cheap and allocation-free.
     *
     * @param version the program version of the call
     * @param procedure its procedure number
     * @param call the whole RPC call message in XDR order, possibly across several views; read
     *        with absolute gets only, never moved or written
     * @param callLength the message's length in bytes
     * @param argumentsOffset where the procedure's arguments begin in the message (after the
     *        credential and verifier), or -1 when the header is malformed
     * @return true to cache the reply
     */
    default boolean isNonIdempotent(int version, int procedure, java.util.List<ByteBuffer> call, int callLength,
            int argumentsOffset) {
        return isNonIdempotent(version, procedure);
    }
}
