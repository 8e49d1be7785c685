package org.rpcrdma4j.transport.internal.recvfrom;

import org.rpcrdma4j.codec.HeaderDecoder;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;

/**
 * ReceivingLoop - the completion loop that receives a connection's messages, as the receive path
 * sees it: the decoder of transport headers it uses, the registration strategy calls with read
 * chunks are planned with, and the handler calls are delivered to. The loop implements it.
 *
 * <p>Threading: the completion loop's own thread.
 */
public interface ReceivingLoop {

    /** @return the loop's decoder of RPC-over-RDMA headers */
    HeaderDecoder decoder();

    /** @return the registration strategy READs are planned with now, or null when none is active */
    RegistrationStrategy activeStrategy();

    /** @return the handler received calls are delivered to */
    RpcCallHandler handler();
}
