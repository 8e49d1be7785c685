package org.rpcrdma4j.shell;

import java.net.InetSocketAddress;
import java.util.List;

import javax.management.AttributeNotFoundException;
import javax.management.MBeanAttributeInfo;

import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.TransportStatistics;

/**
 * ConnectionMBean - one RPC-over-RDMA connection in JMX
 * ({@code org.rpcrdma4j:type=Connection,transport=rdma-20049,remote="192.0.2.7:40001"}): its
 * counters, what was negotiated (credits, inline sizes, remote invalidation) and its reply latency
 * (count, p50, p90, p99, p99.9, max in µs; {@link org.rpcrdma4j.transport.ReplyLatency}).
 */
final class ConnectionMBean extends CountersMBean {
    private final RdmaConnection connection;

    ConnectionMBean(RdmaConnection connection) {
        super(ConnectionMBean.class.getName(), "An RPC-over-RDMA connection: its counters and negotiated settings", List.of(
                new MBeanAttributeInfo("RemoteAddress", "java.lang.String", "the client's address", true, false, false),
                new MBeanAttributeInfo("LocalAddress", "java.lang.String", "the local address it connected to", true, false, false),
                new MBeanAttributeInfo("Open", "boolean", "false once it started closing", true, false, true),
                new MBeanAttributeInfo("GrantedCredits", "int", "credits granted in every reply", true, false, false),
                new MBeanAttributeInfo("ReplySizeLimit", "int", "largest reply sent inline (the client's receive size)", true, false, false),
                new MBeanAttributeInfo("ReceiveSizeLimit", "int", "largest call the client may send inline", true, false, false),
                new MBeanAttributeInfo("RemoteInvalidation", "boolean", "whether the client accepts Send With Invalidate",
                        true, false, false),
                latency("ReplyLatencyCount", "replies whose SEND was posted, in the reply latency histogram"),
                latency("ReplyLatencyP50Micros", "median reply latency"),
                latency("ReplyLatencyP90Micros", "90th percentile reply latency"),
                latency("ReplyLatencyP99Micros", "99th percentile reply latency"),
                latency("ReplyLatencyP999Micros", "99.9th percentile reply latency"),
                latency("ReplyLatencyMaxMicros", "highest reply latency")));
        this.connection = connection;
    }

    @Override
    TransportStatistics statistics() {
        return connection.statistics();
    }

    @Override
    Object extraAttribute(String name) throws AttributeNotFoundException {
        return switch (name) {
            case "RemoteAddress" -> text(connection.remoteAddress());
            case "LocalAddress" -> text(connection.localAddress());
            case "Open" -> connection.isOpen();
            case "GrantedCredits" -> connection.grantedCredits();
            case "ReplySizeLimit" -> connection.replySizeLimit();
            case "ReceiveSizeLimit" -> connection.receiveSizeLimit();
            case "RemoteInvalidation" -> connection.remoteInvalidationAllowed();
            case "ReplyLatencyCount" -> connection.replyLatency().count();
            case "ReplyLatencyP50Micros" -> connection.replyLatency().p50Micros();
            case "ReplyLatencyP90Micros" -> connection.replyLatency().p90Micros();
            case "ReplyLatencyP99Micros" -> connection.replyLatency().p99Micros();
            case "ReplyLatencyP999Micros" -> connection.replyLatency().p999Micros();
            case "ReplyLatencyMaxMicros" -> connection.replyLatency().maxMicros();
            default -> throw new AttributeNotFoundException("no attribute " + name);
        };
    }

    /** @return a {@code long} attribute of the reply latency, each read a fresh snapshot */
    private static MBeanAttributeInfo latency(String name, String what) {
        String unit = name.endsWith("Count") ? "" : " in µs, from the handling of a call's receive completion to the post of"
                + " its reply's SEND: the upper bound of its histogram bucket (Long.MAX_VALUE: beyond 2^26 µs)";
        return new MBeanAttributeInfo(name, "long", what + unit, true, false, false);
    }

    /** @return address:port, IPv6 in brackets; "" for null */
    static String text(InetSocketAddress address) {
        if (address == null) {
            return "";
        }
        String host = address.getAddress() == null ? address.getHostString() : address.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
