package org.rpcrdma4j.transport;

/**
 * RpcCallHandler - the upcall that receives every complete call (the hand-off to the RPC layer,
 * e.g. the oncrpc4j bridge).
 */
@FunctionalInterface
public interface RpcCallHandler {
    /**
     * onCall() - take a received call.
     *
     * <p>Runs on the transport's completion thread: the handler MUST NOT block; it decodes or
     * queues the call for a worker and returns. <b>Ownership of {@code call} passes to the handler
     * when this method is entered, whether it returns or throws: the handler MUST call
     * {@link ReceivedCall#release()} exactly once, from any thread, when it no longer reads the
     * body.</b> Until then the call holds a receive buffer and its read sinks.
     *
     * @param call the call; valid until released
     */
    void onCall(ReceivedCall call);
}
