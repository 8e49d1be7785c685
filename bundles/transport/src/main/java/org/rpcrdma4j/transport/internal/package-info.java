/**
 * The transport's engine (not exported): the acceptor and the completion loops that own
 * connections ({@link org.rpcrdma4j.transport.internal.TransportEngine},
 * {@link org.rpcrdma4j.transport.internal.CompletionLoop}), and below it one package per path, laid
 * out like the Linux files they mirror: {@code connection} (svc_rdma_transport.c), {@code backchannel}
 * (svc_rdma_backchannel.c), {@code recvfrom} (svc_rdma_recvfrom.c), {@code read} (the READ half of
 * svc_rdma_rw.c), {@code sendto} (svc_rdma_sendto.c and the WRITE half of svc_rdma_rw.c), and
 * {@code common}, what every path shares.
 *
 * <p>Layers, top down in that list: each package uses only those below it, and none uses this
 * one. What a lower package needs from above it defines as an interface, which the package
 * above implements and hands in at construction: this package's loop is a
 * {@link org.rpcrdma4j.transport.internal.connection.ConnectionLoop} to its connections.
 *
 * <p>One idea, one name: a completion-loop thread running a call it received itself, instead of
 * handing it to a worker, is <em>run on loop</em> inside the transport
 * ({@link org.rpcrdma4j.transport.internal.CompletionLoop#runOnLoop},
 * {@link org.rpcrdma4j.transport.internal.LoopCrew#runOnLoop}, the batch a pass collects in
 * {@link org.rpcrdma4j.transport.internal.CallsRunOnLoop}). Outside it the operator's and the API's
 * names stay as they are: the setting {@code loopRunsCalls}, the counters
 * {@code CALLS_RUN_ON_LOOP} and {@code KEPT_CALLS_SENT_TO_WORKERS} (the README says a loop thread
 * <em>keeps</em> the calls it runs), and {@link org.rpcrdma4j.transport.ReceivedCall#runOnReceivingThread}.
 */
package org.rpcrdma4j.transport.internal;
