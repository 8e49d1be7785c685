package org.rpcrdma4j.server.tcp;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcMessageParserTCP;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Transport;
import org.glassfish.grizzly.filterchain.Filter;
import org.glassfish.grizzly.filterchain.FilterChain;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.server.ProgramTable;
import org.rpcrdma4j.server.RpcCallDispatcher;
import org.slf4j.LoggerFactory;

/**
 * oncrpc4j's own ONC RPC over TCP service as a hosted transport: the host's programs are
 * registered into an {@link OncRpcSvc} as they come and go.
 *
 * <p>oncrpc4j dispatches TCP calls itself (its Grizzly filter chain and worker pool), with
 * the same error mapping as {@link RpcCallDispatcher}. Nothing is published to a portmapper:
 * clients are told the port (NFS over TCP: 2049 by convention).
 *
 * <p>What a peer claims is checked before oncrpc4j acts on it, as over RDMA: a
 * {@link RecordSizeGuard} before the record parser closes a connection whose record claims
 * more than {@link RecordSizeGuard#MAX_RECORD_BYTES}; the record parser is ours
 * ({@link ClaimCheckedRecordParser}, in oncrpc4j's parser's place), so every message is a
 * claim-checked stream from the start; and an {@link RpcHeaderCheckFilter} after it refuses
 * calls and replies whose credential or verifier lengths are malformed. oncrpc4j's builder has
 * no place for filters of our own, so they go into the chain it built: its transports are read
 * from the service (a private field) and given a new chain with the three filters. The service
 * is not started without them.
 */
public final class OncRpcTcpTransport implements HostedTransport, ProgramTable.Listener {

    /** The conventional NFS port, used when no port is configured. */
    public static final int DEFAULT_PORT = 2049;

    /** How long {@link #stop()} waits for Grizzly to close the listening socket. */
    private static final long LISTENER_CLOSE_TIMEOUT_MILLIS = 5_000;

    private final String bindAddress;
    private final int port;
    private OncRpcSvc service;
    private ProgramTable programs;
    private RpcHeaderCheckFilter headerCheck;
    private final RecordSizeGuard recordGuard = new RecordSizeGuard();

    /**
     * @param bindAddress the local address to listen on ("0.0.0.0" for every IPv4 address,
     *        "::" for every address)
     * @param port 0 for an ephemeral port, else 1..65535
     * @throws IllegalArgumentException naming the setting when a value is invalid
     */
    public OncRpcTcpTransport(String bindAddress, int port) {
        this.bindAddress = checkBindAddress(bindAddress);
        this.port = checkPort(port);
    }

    /** Checks a TCP port setting: 0 (ephemeral) to 65535. */
    public static int checkPort(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
        return port;
    }

    /** Checks a bind address setting: a literal IPv4 or IPv6 address, or a resolvable name. */
    public static String checkBindAddress(String bindAddress) {
        if (bindAddress == null || bindAddress.isBlank()) {
            throw new IllegalArgumentException("bindAddress must be an IP address, was empty");
        }
        try {
            InetAddress.getByName(bindAddress.trim());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bindAddress '" + bindAddress + "' is not an address: "
                    + e.getMessage(), e);
        }
        return bindAddress.trim();
    }

    @Override
    public String name() {
        return "tcp";
    }

    /**
     * {@inheritDoc}
     *
     * <p>Locking: the program table calls this transport back under its own lock, so the
     * listener is added and removed outside this object's monitor (no lock-order inversion).
     */
    @Override
    public void start(RpcCallDispatcher dispatcher) throws IOException {
        OncRpcSvc svc = new OncRpcSvcBuilder()
                .withTCP()
                .withBindAddress(bindAddress)
                .withPort(port)
                .withoutAutoPublish()
                .withWorkerThreadIoStrategy()
                .withServiceName("rpcrdma4j-tcp")
                .build();
        RpcHeaderCheckFilter check = new RpcHeaderCheckFilter(dispatcher);
        synchronized (this) {
            if (service != null) {
                throw new IllegalStateException("TCP transport already started");
            }
            svc.start();
            try {
                guardFilterChains(svc, check);
            } catch (ReflectiveOperationException | RuntimeException e) {
                svc.stop();
                check.shutdown();
                throw new IOException("The oncrpc4j TCP service cannot be served without rpcrdma4j's record size and RPC "
                        + "header checks, and they could not be put into its filter chain (is this the oncrpc4j version "
                        + "the feature names?): " + e, e);
            }
            service = svc;
            headerCheck = check;
            programs = dispatcher.programs();
        }
        dispatcher.programs().addListener(this);
    }

    /**
     * guardFilterChains() - gives each of the service's Grizzly transports (and the listening
     * connections bound from them) a chain with {@link RecordSizeGuard}, our record parser in
     * place of oncrpc4j's, and the header check just after it. Called right after the service started,
     * before any program is registered: a connection accepted in between is guarded from its next
     * read on.
     */
    private void guardFilterChains(OncRpcSvc svc, RpcHeaderCheckFilter check) throws ReflectiveOperationException {
        for (Object transport : (Collection<?>) privateField(svc, "_transports")) {
            Transport grizzly = (Transport) transport;
            grizzly.setProcessor(guarded((FilterChain) grizzly.getProcessor(), check));
        }
        for (Object bound : (Collection<?>) privateField(svc, "_boundConnections")) {
            Connection<?> listening = (Connection<?>) bound;
            if (listening.getProcessor() instanceof FilterChain chain) {
                listening.setProcessor(guarded(chain, check));
            }
        }
    }

    private static Object privateField(OncRpcSvc svc, String name) throws ReflectiveOperationException {
        Field field = OncRpcSvc.class.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(svc);
    }

    private FilterChain guarded(FilterChain chain, RpcHeaderCheckFilter check) {
        List<Filter> filters = new ArrayList<>();
        boolean parserFound = false;
        for (Filter filter : chain) {
            if (filter instanceof RecordSizeGuard || filter instanceof RpcHeaderCheckFilter) {
                continue; // already guarded (a listening connection sharing its transport's chain)
            }
            if (filter instanceof RpcMessageParserTCP) {
                parserFound = true;
                filters.add(recordGuard);
                // ours in place of oncrpc4j's: each message a ClaimCheckedXdr from the start
                filters.add(filter instanceof ClaimCheckedRecordParser ? filter : new ClaimCheckedRecordParser());
                filters.add(check);
            } else {
                filters.add(filter);
            }
        }
        if (!parserFound) {
            throw new IllegalStateException("oncrpc4j's TCP filter chain has no RpcMessageParserTCP: " + chain);
        }
        return FilterChainBuilder.stateless().addAll(filters).build();
    }

    /** Connections closed because a record claimed more than {@link RecordSizeGuard#MAX_RECORD_BYTES}. */
    public long refusedRecords() {
        return recordGuard.refusedRecords();
    }

    @Override
    public void stop() {
        OncRpcSvc svc;
        ProgramTable table;
        RpcHeaderCheckFilter check;
        synchronized (this) {
            svc = service;
            table = programs;
            check = headerCheck;
            service = null;
            programs = null;
            headerCheck = null;
        }
        if (svc == null) {
            return;
        }
        check.shutdown();
        table.removeListener(this);
        InetSocketAddress listening = svc.getInetSocketAddress(IpProtocolType.TCP);
        try {
            svc.stop();
        } catch (IOException e) {
            LoggerFactory.getLogger(OncRpcTcpTransport.class)
                    .warn("Stopping the oncrpc4j TCP service failed: {}", e.toString());
        }
        awaitListenerClosed(listening);
    }

    /**
     * Waits until the port the service listened on is free again. oncrpc4j's stop asks
     * Grizzly to close the listening channel, and Grizzly closes it on its selector thread,
     * after stop has returned: in that window the port still accepts connections, and a
     * transport started again on the same port (a Karaf reconfiguration) fails with "address
     * in use". Binding a probe socket (with SO_REUSEADDR, which Linux still refuses while a
     * socket listens on the port, but grants beside connections that linger in TIME_WAIT) is
     * how the close is seen; a probe never accepts.
     */
    private static void awaitListenerClosed(InetSocketAddress listening) {
        if (listening == null) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LISTENER_CLOSE_TIMEOUT_MILLIS);
        IOException lastRefusal;
        do {
            try (ServerSocket probe = new ServerSocket()) {
                probe.setReuseAddress(true);
                probe.bind(listening);
                return;
            } catch (IOException refused) {
                lastRefusal = refused;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        } while (System.nanoTime() - deadline < 0);
        LoggerFactory.getLogger(OncRpcTcpTransport.class)
                .warn("The oncrpc4j TCP service stopped, but {} was not free again within {} ms: {}",
                        listening, LISTENER_CLOSE_TIMEOUT_MILLIS, lastRefusal.toString());
    }

    @Override
    public synchronized InetSocketAddress localAddress() {
        return service == null ? null : service.getInetSocketAddress(IpProtocolType.TCP);
    }

    @Override
    public synchronized void programAdded(OncRpcProgram program, RpcDispatchable dispatchable) {
        if (service != null) {
            service.register(program, dispatchable);
        }
    }

    @Override
    public synchronized void programRemoved(OncRpcProgram program, RpcDispatchable dispatchable) {
        if (service != null) {
            service.unregister(program);
        }
    }
}
