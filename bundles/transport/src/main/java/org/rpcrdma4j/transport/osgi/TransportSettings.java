package org.rpcrdma4j.transport.osgi;

import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.server.tcp.OncRpcTcpTransport;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;

/**
 * TransportSettings - a checked {@link RdmaTransportConfig}: every value went through the builder
 * that owns it, so a bad one is an {@link IllegalArgumentException} naming the property.
 */
record TransportSettings(boolean enabled, String provider, String bindAddress, int port, TransportConfig transportConfig,
                         String activeStrategy, int replyCacheEntries, int replyCacheMaxReplyBytes) {

    static TransportSettings of(RdmaTransportConfig c) {
        if (c.provider() == null || c.provider().isBlank()) {
            throw new IllegalArgumentException("provider must be auto or name a verbs provider (loopback, disni), was empty");
        }
        RpcRdmaLimits limits = RpcRdmaLimits.builder()
                .maxReadSegments(c.maxReadSegments())
                .maxReadChunks(c.maxReadChunks())
                .maxWriteChunks(c.maxWriteChunks())
                .maxSegmentsPerChunk(c.maxSegmentsPerChunk())
                .maxReadBytes(c.maxReadBytes())
                .build();
        TransportConfig config = TransportConfig.builder()
                .credits(c.credits())
                .inlineReceiveThreshold(c.inlineReceiveThreshold())
                .maxInlineSend(c.maxInlineSend())
                .maxOutstandingReads(c.maxOutstandingReads())
                .sendBuffers(c.sendBuffers())
                .readSinkCount(c.readSinkCount())
                .readSinkLength(c.readSinkLength())
                .replyStagingBytes(c.replyStagingBytes())
                .completionLoops(c.completionLoops())
                .stallTimeoutSeconds(c.stallTimeoutSeconds())
                .completionSpinMicros(c.completionSpinMicros())
                .loopRunsCalls(c.loopRunsCalls())
                .nextCallSpinMicros(c.nextCallSpinMicros())
                .callTimeSliceMicros(c.callTimeSliceMicros())
                .maxConnections(c.maxConnections())
                .backchannelCredits(c.backchannelCredits())
                .limits(limits)
                .build();
        RdmaHostedTransport.checkReplyCacheEntries(c.replyCacheEntries());
        RdmaHostedTransport.checkReplyCacheMaxReplyBytes(c.replyCacheMaxReplyBytes());
        String strategy = c.activeStrategy() == null || c.activeStrategy().isBlank() ? null : c.activeStrategy().trim();
        return new TransportSettings(c.enabled(), c.provider().trim(), OncRpcTcpTransport.checkBindAddress(c.bindAddress()),
                OncRpcTcpTransport.checkPort(c.port()), config, strategy, c.replyCacheEntries(), c.replyCacheMaxReplyBytes());
    }

    /** @return true when the two differ at most in the active strategy (switched in place) */
    boolean sameExceptStrategy(TransportSettings other) {
        return enabled == other.enabled && provider.equals(other.provider) && bindAddress.equals(other.bindAddress)
                && port == other.port && transportConfig.toString().equals(other.transportConfig.toString())
                && replyCacheEntries == other.replyCacheEntries && replyCacheMaxReplyBytes == other.replyCacheMaxReplyBytes;
    }
}
