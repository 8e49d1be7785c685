package org.rpcrdma4j.nfs4j;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.dcache.nfs.status.NoGraceException;
import org.dcache.nfs.status.ReclaimBadException;
import org.dcache.nfs.v4.ClientRecoveryStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ClientRecoveryFile - nfs4j's NFSv4 client recovery records (RFC 8881 §8.4.2.1, "stable
 * storage") in one small file, so that after a restart the clients that held state may reclaim
 * it during the grace period, and no other client may.
 *
 * <p>The file holds two sets of client owners (hex, one per line): {@code C} the clients of this
 * instance, {@code P} the clients of earlier instances still allowed to reclaim. At start every
 * {@code C} becomes {@code P}. A {@code P} record goes when its client reclaims, is removed, or
 * the grace period ends ({@link #reclaimComplete}); so a restart during a grace period keeps the
 * rights of the clients that had not reclaimed yet. Every change is written to a temporary file,
 * forced, and renamed over the old one: a crash leaves the old or the new records, never a mix.
 * The file is 0600 in a 0700 directory (owners name the clients).
 *
 * <p>The grace period counts from the first call any client makes to this instance
 * ({@link #heardFromClient}), not from the start: nfs4j ends it one lease after its state handler
 * starts, but clients can only reclaim once a transport they use listens, and the RPC-over-RDMA
 * transport may come up long after nfs4j in Karaf (on a soft-RDMA guest, more than a 60 s lease
 * after: nfs4j's grace period would end before a client holding state over RDMA could reach it
 * to reclaim). So nfs4j's timer ({@link #reclaimComplete}) ends it only once a full grace period has
 * passed since the first call; until then, or until every earlier client has reclaimed, the grace
 * period stays. Linux's knfsd, which starts with its transports, counts from its start.
 *
 * <p>nfs4j's alternative, {@code BerkeleyDBClientStore}, needs Berkeley DB JE, which is not an
 * OSGi bundle. Thread-safe (one lock; records change at EXCHANGE_ID and DESTROY_CLIENTID only;
 * {@link #heardFromClient}, on every call, takes no lock).
 */
public final class ClientRecoveryFile implements ClientRecoveryStore {

    /** The file's name in the state directory. */
    public static final String FILE_NAME = "nfs4-clients";

    private static final Logger LOG = LoggerFactory.getLogger(ClientRecoveryFile.class);
    private static final HexFormat HEX = HexFormat.of();
    /** {@link #firstContact} before any client called. */
    private static final long NOT_YET = Long.MIN_VALUE;

    private final Path file;
    private final long graceNanos;
    private final LongSupplier nanoClock;
    /** When the first client call reached this instance ({@link System#nanoTime()}), or {@link #NOT_YET}. */
    private final AtomicLong firstContact = new AtomicLong(NOT_YET);
    /** Whether the line saying the grace period was kept open was logged. */
    private boolean keptOpenLogged;
    private final Set<String> current = new LinkedHashSet<>();
    /** Clients of earlier instances that may still reclaim; null once the grace period is over. */
    private Set<String> previous = new LinkedHashSet<>();

    /**
     * Opens (or creates) the records in a state directory.
     *
     * @param grace how long after the first client call earlier clients may still reclaim (nfs4j's
     *        lease time)
     * @throws IOException if the directory or file cannot be created, read or written, or a
     *         line is not a record (the message names the line)
     */
    public ClientRecoveryFile(Path stateDirectory, Duration grace) throws IOException {
        this(stateDirectory, grace, System::nanoTime);
    }

    /** As {@link #ClientRecoveryFile(Path, Duration)}, with a clock of nanoseconds (tests). */
    ClientRecoveryFile(Path stateDirectory, Duration grace, LongSupplier nanoClock) throws IOException {
        this.graceNanos = grace.toNanos();
        this.nanoClock = nanoClock;
        Files.createDirectories(stateDirectory,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        this.file = stateDirectory.resolve(FILE_NAME);
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).trim();
                if (line.isEmpty()) {
                    continue;
                }
                if (line.length() < 3 || (line.charAt(0) != 'C' && line.charAt(0) != 'P') || line.charAt(1) != ' '
                        || !isHex(line.substring(2))) {
                    throw new IOException(file + " line " + (i + 1) + ": not a client record ('C <hex>' or 'P <hex>')");
                }
                previous.add(line.substring(2));
            }
        }
        save();
        if (!previous.isEmpty()) {
            LOG.info("{} NFSv4 client(s) of the previous run may reclaim their state during the grace period",
                    previous.size());
        }
    }

    private static boolean isHex(String text) {
        if (text.isEmpty() || text.length() % 2 != 0) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (Character.digit(text.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public synchronized void addClient(byte[] client) {
        if (current.add(HEX.formatHex(client))) {
            saveQuietly();
        }
    }

    /**
     * heardFromClient() - a client's call reached this instance: the grace period counts from the
     * first one. Any thread, on every call; no lock.
     */
    public void heardFromClient() {
        if (firstContact.get() == NOT_YET) {
            firstContact.compareAndSet(NOT_YET, nanoClock.getAsLong());
        }
    }

    @Override
    public synchronized void reclaimClient(byte[] client) {
        if (previous != null && previous.remove(HEX.formatHex(client))) {
            if (previous.isEmpty()) {
                endGracePeriod("every client of the previous run reclaimed");
                return;
            }
            saveQuietly();
        }
    }

    @Override
    public synchronized void removeClient(byte[] client) {
        String owner = HEX.formatHex(client);
        boolean changed = current.remove(owner);
        changed |= previous != null && previous.remove(owner);
        if (changed) {
            saveQuietly();
        }
    }

    @Override
    public synchronized boolean waitingForReclaim() {
        endGracePeriodIfDue();
        return previous != null && !previous.isEmpty();
    }

    @Override
    public synchronized void wantReclaim(byte[] client) throws NoGraceException, ReclaimBadException {
        endGracePeriodIfDue();
        if (previous == null) {
            throw new NoGraceException("the grace period is over");
        }
        if (!previous.contains(HEX.formatHex(client))) {
            throw new ReclaimBadException("no state of this client to reclaim");
        }
    }

    /**
     * reclaimComplete() - nfs4j's timer says the grace period is over (one lease after its state
     * handler started): it is, once a full grace period has passed since the first client call;
     * before that it stays open and ends when a later call finds it due.
     */
    @Override
    public synchronized void reclaimComplete() {
        if (previous == null) {
            return;
        }
        if (graceDue()) {
            endGracePeriod("a grace period has passed since the first client call");
        } else if (!keptOpenLogged) {
            keptOpenLogged = true;
            long first = firstContact.get();
            LOG.info("NFSv4 grace period kept open for {} client(s) of the previous run: {}", previous.size(),
                    first == NOT_YET ? "no client has reached this server yet (a transport may still be starting)"
                            : "it ends " + Duration.ofNanos(graceNanos - (nanoClock.getAsLong() - first)).toSeconds()
                                    + " s from now, a grace period after the first client call");
        }
    }

    private boolean graceDue() {
        long first = firstContact.get();
        return first != NOT_YET && nanoClock.getAsLong() - first >= graceNanos;
    }

    private void endGracePeriodIfDue() {
        if (previous != null && graceDue()) {
            endGracePeriod("a grace period has passed since the first client call");
        }
    }

    private void endGracePeriod(String why) {
        if (previous != null) {
            int left = previous.size();
            previous = null;
            saveQuietly();
            LOG.info("NFSv4 grace period over: {} ({} client(s) of the previous run did not reclaim)", why, left);
        }
    }

    /**
     * Nothing to do: every change is on disk when its call returns. (Not writing here matters:
     * on a reconfiguration the next servers open the same file before these close.)
     */
    @Override
    public void close() {
    }

    private void saveQuietly() {
        try {
            save();
        } catch (IOException e) {
            // The state itself lives on in memory; only a restart's reclaim is at risk.
            LOG.error("cannot write the NFSv4 client records {}: {} (after a restart, clients may fail to reclaim)",
                    file, e.toString());
        }
    }

    private void save() throws IOException {
        StringBuilder text = new StringBuilder();
        if (previous != null) {
            for (String owner : previous) {
                if (!current.contains(owner)) {
                    text.append("P ").append(owner).append('\n');
                }
            }
        }
        for (String owner : current) {
            text.append("C ").append(owner).append('\n');
        }
        Path temporary = file.resolveSibling(FILE_NAME + ".tmp");
        try (FileChannel channel = FileChannel.open(temporary, Set.of(StandardOpenOption.WRITE,
                StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ByteBuffer bytes = StandardCharsets.US_ASCII.encode(text.toString());
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(true);
        }
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
