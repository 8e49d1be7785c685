package org.rpcrdma4j.transport.internal.backchannel;

import org.rpcrdma4j.transport.RpcCallHandler;

/**
 * BackchannelLoop - the completion loop that sends a connection's backward calls and receives
 * their replies, as the back channel sees it: the wakeup that gets a queued call sent, and the
 * handler told of replies, refused replies and the channel's close. The loop implements it.
 *
 * <p>Threading: {@link #wakeup()} and {@link #inLoop()} from any thread; {@link #handler()} on
 * the completion loop.
 */
public interface BackchannelLoop {

    /** wakeup() - another thread queued work for the loop: end its sleep if it sleeps. Any thread. */
    void wakeup();

    /** @return true on the loop's own thread (the leader of its crew) */
    boolean inLoop();

    /** @return the handler told of backward replies and of the back channel's close */
    RpcCallHandler handler();
}
