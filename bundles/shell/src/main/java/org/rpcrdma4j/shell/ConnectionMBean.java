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
 * counters and what was negotiated (credits, inline sizes, remote invalidation).
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
                        true, false, false)));
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
            default -> throw new AttributeNotFoundException("no attribute " + name);
        };
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
