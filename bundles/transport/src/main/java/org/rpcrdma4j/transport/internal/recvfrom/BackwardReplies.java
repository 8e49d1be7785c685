package org.rpcrdma4j.transport.internal.recvfrom;

/**
 * BackwardReplies - where the receive path hands the messages that travel in the backward
 * direction (RFC 8167): RPC replies from the client to the server's backward calls, which arrive
 * on the same receive queue as forward calls and must never be taken for one. The connection's
 * back channel implements it.
 *
 * <p>Ownership: the receive context stays the caller's; it recycles it when a method returns true.
 *
 * <p>Threading: the completion loop only.
 */
public interface BackwardReplies {

    /**
     * takeReply() - if this decoded inline message is an RPC reply, take it (matched to its
     * backward call, or dropped and counted).
     *
     * @return true when the message was a reply; false when it is a forward call for the call path
     */
    boolean takeReply(ReceiveContext ctx);

    /**
     * takeAssembledReply() - if this message, whose read chunks were pulled and assembled, is an
     * RPC reply, refuse it (backward replies are inline only).
     *
     * @return true when the message was a reply (refused or unmatched, counted); false for a call
     */
    boolean takeAssembledReply(ReceiveContext ctx);
}
