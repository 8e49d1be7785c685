/**
 * XDR primitives and the RPC-over-RDMA version 1 transport header (RFC 8166), with the
 * RFC 8797 connection private data.
 *
 * <p>This package depends on nothing but {@code java.base}: no OSGi, verbs provider or
 * Grizzly type appears here, so the codec can be used, tested and fuzzed on its own.
 *
 * <p>Map of the package:
 * <ul>
 * <li>{@link org.rpcrdma4j.codec.Xdr}, {@link org.rpcrdma4j.codec.XdrReader},
 *     {@link org.rpcrdma4j.codec.XdrWriter}: XDR units, round-up and padding; flyweights
 *     that read and write in place over any ByteBuffer, big-endian, without copying.</li>
 * <li>{@link org.rpcrdma4j.codec.RpcRdma}, {@link org.rpcrdma4j.codec.RpcRdmaCm}: the
 *     constants of each protocol, with wire diagrams and {@code toString(int)}.</li>
 * <li>{@link org.rpcrdma4j.codec.HeaderDecoder} decodes a received header into a reused,
 *     pre-sized {@link org.rpcrdma4j.codec.ParsedHeader} (its
 *     {@link org.rpcrdma4j.codec.ReadList}, {@link org.rpcrdma4j.codec.WriteList} and
 *     reply-chunk {@link org.rpcrdma4j.codec.SegmentList}) under
 *     {@link org.rpcrdma4j.codec.RpcRdmaLimits}, and returns a
 *     {@link org.rpcrdma4j.codec.DecodeStatus}; it never throws on bad input and allocates
 *     nothing.</li>
 * <li>{@link org.rpcrdma4j.codec.ReplyEncoder} writes a responder's reply and error
 *     headers; {@link org.rpcrdma4j.codec.HeaderWriter} writes any header (calls on the
 *     requester side, or a decoded header back).</li>
 * <li>{@link org.rpcrdma4j.codec.ConnectionPrivateData}: the RFC 8797 message.</li>
 * <li>{@link org.rpcrdma4j.codec.RpcMessage}: the ONC RPC message header (RFC 5531) that
 *     RPC-over-RDMA carries: its constants, fixed offsets, and readers and writers of call and
 *     reply headers.</li>
 * </ul>
 *
 * <p>Threading: decoders, encoders and flyweights are confined to one thread; limits and
 * private data values are immutable.
 */
@Export
@Version("0.2.0")
package org.rpcrdma4j.codec;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
