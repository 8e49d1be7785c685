package org.rpcrdma4j.transport.osgi;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

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
    /** The provider names this build ships, besides {@value ProviderChoice#AUTO}. */
    private static final Set<String> KNOWN_PROVIDERS = Set.of(ProviderChoice.AUTO, ProviderChoice.LOOPBACK, ProviderChoice.DISNI);

    /** {@link #of(RdmaTransportConfig, Map)} without the raw values (a refusal then cannot quote them). */
    static TransportSettings of(RdmaTransportConfig c) {
        return of(c, Map.of());
    }

    /**
     * of() - reads and checks every setting.
     *
     * @param c the configuration as SCR presents it; SCR converts a value only when it is read, so
     *     a value of the wrong type surfaces here, as the read's exception
     * @param raw the configuration's properties as given (etc/org.rpcrdma4j.transport.cfg), for
     *     quoting a refused value and checking booleans strictly
     * @return the checked settings
     * @throws IllegalArgumentException naming the property and the value refused
     */
    static TransportSettings of(RdmaTransportConfig c, Map<String, ?> raw) {
        String provider = read(raw, "provider", c::provider);
        if (provider == null || provider.isBlank()) {
            throw new IllegalArgumentException("provider must be auto or name a verbs provider (loopback, disni), was empty");
        }
        RpcRdmaLimits limits = RpcRdmaLimits.builder()
                .maxReadSegments(read(raw, "maxReadSegments", c::maxReadSegments))
                .maxReadChunks(read(raw, "maxReadChunks", c::maxReadChunks))
                .maxWriteChunks(read(raw, "maxWriteChunks", c::maxWriteChunks))
                .maxSegmentsPerChunk(read(raw, "maxSegmentsPerChunk", c::maxSegmentsPerChunk))
                .maxReadBytes(read(raw, "maxReadBytes", c::maxReadBytes))
                .build();
        TransportConfig config = TransportConfig.builder()
                .credits(read(raw, "credits", c::credits))
                .inlineReceiveThreshold(read(raw, "inlineReceiveThreshold", c::inlineReceiveThreshold))
                .maxInlineSend(read(raw, "maxInlineSend", c::maxInlineSend))
                .maxOutstandingReads(read(raw, "maxOutstandingReads", c::maxOutstandingReads))
                .sendBuffers(read(raw, "sendBuffers", c::sendBuffers))
                .readSinkCount(read(raw, "readSinkCount", c::readSinkCount))
                .readSinkLength(read(raw, "readSinkLength", c::readSinkLength))
                .replyStagingBytes(read(raw, "replyStagingBytes", c::replyStagingBytes))
                .completionLoops(read(raw, "completionLoops", c::completionLoops))
                .stallTimeoutSeconds(read(raw, "stallTimeoutSeconds", c::stallTimeoutSeconds))
                .completionSpinMicros(read(raw, "completionSpinMicros", c::completionSpinMicros))
                .loopRunsCalls(readBoolean(raw, "loopRunsCalls", c::loopRunsCalls))
                .nextCallSpinMicros(read(raw, "nextCallSpinMicros", c::nextCallSpinMicros))
                .callTimeSliceMicros(read(raw, "callTimeSliceMicros", c::callTimeSliceMicros))
                .maxConnections(read(raw, "maxConnections", c::maxConnections))
                .backchannelCredits(read(raw, "backchannelCredits", c::backchannelCredits))
                .limits(limits)
                .build();
        int replyCacheEntries = read(raw, "replyCacheEntries", c::replyCacheEntries);
        int replyCacheMaxReplyBytes = read(raw, "replyCacheMaxReplyBytes", c::replyCacheMaxReplyBytes);
        RdmaHostedTransport.checkReplyCacheEntries(replyCacheEntries);
        RdmaHostedTransport.checkReplyCacheMaxReplyBytes(replyCacheMaxReplyBytes);
        String activeStrategy = read(raw, "activeStrategy", c::activeStrategy);
        String strategy = activeStrategy == null || activeStrategy.isBlank() ? null : activeStrategy.trim();
        return new TransportSettings(readBoolean(raw, "enabled", c::enabled), provider.trim(),
                OncRpcTcpTransport.checkBindAddress(read(raw, "bindAddress", c::bindAddress)),
                OncRpcTcpTransport.checkPort(read(raw, "port", c::port)), config, strategy, replyCacheEntries,
                replyCacheMaxReplyBytes);
    }

    /**
     * checkProvider() - refuses a provider name that cannot be meant: neither {@code auto}, nor a
     * provider this build ships ({@code loopback}, {@code disni}), nor one registered now.
     *
     * @throws IllegalArgumentException naming the property, the value and the nearest name
     */
    static void checkProvider(String provider, Set<String> registered) {
        Set<String> names = new TreeSet<>(KNOWN_PROVIDERS);
        names.addAll(registered);
        if (!names.contains(provider)) {
            throw new IllegalArgumentException("provider = " + provider + ": no such verbs provider (one of " + names
                    + ")" + ConfigKeys.suggestion(provider, names));
        }
    }

    /** Reads one setting; SCR's conversion failure becomes a refusal naming the property and the value. */
    private static <T> T read(Map<String, ?> raw, String name, Supplier<T> getter) {
        try {
            return getter.get();
        } catch (RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalArgumentException(name + " = " + raw.get(name) + ": not " + ConfigKeys.kind(name)
                    + " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")", e);
        }
    }

    /** Reads a boolean setting; SCR takes anything but "true" as false, here only true and false pass. */
    private static boolean readBoolean(Map<String, ?> raw, String name, Supplier<Boolean> getter) {
        Object value = raw.get(name);
        if (value instanceof String text && !text.trim().equalsIgnoreCase("true") && !text.trim().equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(name + " = " + text + ": not true or false");
        }
        return read(raw, name, getter);
    }

    /** @return true when the two differ at most in the active strategy (switched in place) */
    boolean sameExceptStrategy(TransportSettings other) {
        return enabled == other.enabled && provider.equals(other.provider) && bindAddress.equals(other.bindAddress)
                && port == other.port && transportConfig.toString().equals(other.transportConfig.toString())
                && replyCacheEntries == other.replyCacheEntries && replyCacheMaxReplyBytes == other.replyCacheMaxReplyBytes;
    }
}
