package org.rpcrdma4j.shell;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.apache.karaf.shell.support.table.ShellTable;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReplyLatency;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;

/** Hand-set stand-ins for the transport's operator interfaces, and table rendering for assertions. */
final class Fakes {
    /** Sets a command's field as Karaf's injection does (an {@code @Reference} or {@code @Option}). */
    static void inject(Object command, String field, Object value) throws ReflectiveOperationException {
        Field f = command.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(command, value);
    }

    private Fakes() {
    }

    /** Renders a table as the console would on an ASCII terminal. */
    static String render(ShellTable table) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        table.forceAscii().print(out);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The line of {@code text} that starts with {@code prefix} (after spaces), or a failure. */
    static String line(String text, String prefix) {
        for (String l : text.split("\n")) {
            if (l.strip().startsWith(prefix)) {
                return l;
            }
        }
        throw new AssertionError("no line starting with '" + prefix + "' in:\n" + text);
    }

    /** The cells of the first table line whose leading cells are {@code leading}, or a failure. */
    static List<String> row(String text, String... leading) {
        for (String l : text.split("\n")) {
            List<String> cells = cells(l);
            if (cells.size() >= leading.length && cells.subList(0, leading.length).equals(List.of(leading))) {
                return cells;
            }
        }
        throw new AssertionError("no row starting with " + List.of(leading) + " in:\n" + text);
    }

    /** The cells of a table line, trimmed. */
    static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        for (String c : line.split("\\|", -1)) {
            cells.add(c.strip());
        }
        return cells;
    }

    static final class Statistics implements TransportStatistics {
        final Map<Counter, Long> values = new EnumMap<>(Counter.class);

        Statistics set(Counter counter, long value) {
            values.put(counter, value);
            return this;
        }

        @Override
        public long get(Counter counter) {
            return values.getOrDefault(counter, 0L);
        }

        @Override
        public Map<String, Long> readsByStrategy() {
            return Map.of();
        }
    }

    static final class Connection implements RdmaConnection {
        InetSocketAddress remote = new InetSocketAddress("192.0.2.7", 40001);
        InetSocketAddress local = new InetSocketAddress("192.0.2.1", 20049);
        boolean open = true;
        int replySizeLimit = 4096;
        boolean remoteInvalidation;
        int credits = 32;
        Statistics statistics = new Statistics();
        FakeBackchannel backchannel = new FakeBackchannel();
        ReplyLatency replyLatency = ReplyLatency.EMPTY;

        @Override
        public ReplyLatency replyLatency() {
            return replyLatency;
        }

        @Override
        public Backchannel backchannel() {
            return backchannel;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return remote;
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public int replySizeLimit() {
            return replySizeLimit;
        }

        @Override
        public int receiveSizeLimit() {
            return 4096;
        }

        @Override
        public boolean remoteInvalidationAllowed() {
            return remoteInvalidation;
        }

        @Override
        public int grantedCredits() {
            return credits;
        }

        @Override
        public TransportStatistics statistics() {
            return statistics;
        }

        @Override
        public void close() {
            open = false;
        }
    }

    static final class FakeBackchannel implements Backchannel {
        int credits = 2;
        int outstanding;
        int waiting;
        int maxCallSize = 4068;

        @Override
        public SendOutcome send(java.nio.ByteBuffer rpcCall) {
            return SendOutcome.CLOSED;
        }

        @Override
        public void forget(int xid) {
        }

        @Override
        public int credits() {
            return credits;
        }

        @Override
        public int outstanding() {
            return outstanding;
        }

        @Override
        public int waiting() {
            return waiting;
        }

        @Override
        public int maxCallSize() {
            return maxCallSize;
        }
    }

    static final class Control implements RdmaTransportControl {
        String name = "rdma";
        InetSocketAddress address = new InetSocketAddress("0.0.0.0", 20049);
        String provider = "loopback";
        Statistics statistics = new Statistics();
        List<RdmaConnection> connections = new ArrayList<>();
        List<String> strategies = new ArrayList<>(List.of("lkey", "frmr"));
        String active = "lkey";
        int activations;

        @Override
        public String name() {
            return name;
        }

        @Override
        public InetSocketAddress localAddress() {
            return address;
        }

        @Override
        public String providerName() {
            return provider;
        }

        @Override
        public TransportConfig config() {
            return TransportConfig.DEFAULTS;
        }

        @Override
        public TransportStatistics statistics() {
            return statistics;
        }

        @Override
        public List<RdmaConnection> connections() {
            return List.copyOf(connections);
        }

        @Override
        public List<String> strategies() {
            return List.copyOf(strategies);
        }

        @Override
        public String activeStrategy() {
            return active;
        }

        @Override
        public void activateStrategy(String strategy) {
            if (!strategies.contains(strategy)) {
                throw new IllegalArgumentException(strategy);
            }
            activations++;
            active = strategy;
        }
    }
}
