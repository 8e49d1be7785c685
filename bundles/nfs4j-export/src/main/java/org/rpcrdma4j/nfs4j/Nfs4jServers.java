package org.rpcrdma4j.nfs4j;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import org.dcache.nfs.ExportFile;
import org.dcache.nfs.FsExport;
import org.dcache.nfs.v3.MountServer;
import org.dcache.nfs.v3.NfsServerV3;
import org.dcache.nfs.v4.MDSOperationExecutor;
import org.dcache.nfs.v4.NFSServerV41;
import org.dcache.nfs.v4.NFSv4StateHandler;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.nfs3.localfs.ServerKey;

/**
 * Nfs4jServers - dCache nfs4j's servers over one local directory, ready to be registered with
 * the host server: NFSv4 ({@link NFSServerV41}: 4.0, 4.1 with sessions and callbacks over the
 * back channel) and, if asked, NFSv3 and MOUNT v3, all on one {@link DirectoryFileSystem}, one
 * handle key and one {@link SwitchableExportTable}.
 *
 * <p>Everything is checked before anything is opened: a bad setting is an
 * {@link IllegalArgumentException} naming the setting and the fault. {@link #close} ends the
 * NFSv4 state and closes the client records; the caller owns this object.
 */
public final class Nfs4jServers implements AutoCloseable {

    /** NFS program number. */
    public static final int NFS_PROGRAM = 100003;
    /** MOUNT program number. */
    public static final int MOUNT_PROGRAM = 100005;

    /** The protocol versions nfs4j can serve here. */
    public enum Version {
        /** NFSv4 (program 100003 version 4): 4.0, 4.1 and 4.2 as nfs4j implements them. */
        NFS4("4"),
        /** NFSv3 (100003 v3) with MOUNT v3 (100005 v3). */
        NFS3("3");

        private final String setting;

        Version(String setting) {
            this.setting = setting;
        }

        /** The version named in the configuration ("4" or "3"; "4.1" and "4.0" also name NFSv4). */
        public static Version of(String setting) {
            String trimmed = setting.trim();
            if (trimmed.equals("4") || trimmed.equals("4.0") || trimmed.equals("4.1") || trimmed.equals("4.2")) {
                return NFS4;
            }
            if (trimmed.equals("3")) {
                return NFS3;
            }
            throw new IllegalArgumentException("'" + setting + "' is not an NFS version nfs4j serves here ('4' or '3')");
        }

        @Override
        public String toString() {
            return setting;
        }
    }

    /** What to serve: checked by {@link #check}. */
    public record Settings(Path root, List<String> exports, Path stateDirectory, Set<Version> versions,
            Duration lease) {
        public Settings {
            exports = List.copyOf(exports);
            versions = Collections.unmodifiableSet(EnumSet.copyOf(versions));
        }
    }

    private final Settings settings;
    private final DirectoryFileSystem fileSystem;
    private final SwitchableExportTable exports;
    private final ClientRecoveryFile clientRecords;
    private final NFSv4StateHandler stateHandler;
    private final Map<OncRpcProgram, RpcDispatchable> programs = new LinkedHashMap<>();

    /**
     * Opens the directory, the key, the client records and nfs4j's servers.
     *
     * @throws IllegalArgumentException naming the setting when one is invalid
     * @throws IOException when the state directory or the root cannot be read or written
     */
    public Nfs4jServers(Settings settings) throws IOException {
        this.settings = settings;
        ExportFile table = parseExports(settings.root(), settings.exports());
        ServerKey key = ServerKey.loadOrCreate(settings.stateDirectory());
        this.fileSystem = new DirectoryFileSystem(settings.root(), key);
        this.exports = new SwitchableExportTable(table);
        this.clientRecords = new ClientRecoveryFile(settings.stateDirectory(), settings.lease());
        if (settings.versions().contains(Version.NFS4)) {
            this.stateHandler = new NFSv4StateHandler(settings.lease(), 0, clientRecords);
            NFSServerV41 nfs4 = new NFSServerV41.Builder()
                    .withVfs(fileSystem)
                    .withOperationExecutor(new MDSOperationExecutor())
                    .withExportTable(exports)
                    .withStateHandler(stateHandler)
                    .withImplementationName("rpcrdma4j nfs4j export")
                    .build();
            programs.put(new OncRpcProgram(NFS_PROGRAM, 4),
                    countingContact(CallerIdentity.around(nfs4, exports, fileSystem.root()), clientRecords));
        } else {
            this.stateHandler = null;
        }
        if (settings.versions().contains(Version.NFS3)) {
            programs.put(new OncRpcProgram(NFS_PROGRAM, 3),
                    CallerIdentity.around(new NfsServerV3(exports, fileSystem), exports, fileSystem.root()));
            programs.put(new OncRpcProgram(MOUNT_PROGRAM, 3),
                    CallerIdentity.around(new MountServer(exports, fileSystem), exports, fileSystem.root()));
        }
    }

    /**
     * Parses export lines one by one, so that a line nfs4j would skip (it logs and serves the
     * rest) is refused instead, and checks that every export path is a directory inside the root.
     *
     * @throws IllegalArgumentException naming the line ({@code exports[i]}) and the fault
     */
    public static ExportFile parseExports(Path root, List<String> lines) {
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("exports: no export given");
        }
        Path realRoot;
        try {
            realRoot = root.toRealPath();
        } catch (IOException e) {
            throw new IllegalArgumentException("root: " + root + " cannot be read (" + e + ")");
        }
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            String name = "exports[" + i + "] '" + line + "'";
            if (!line.startsWith("/")) {
                throw new IllegalArgumentException(name + ": an export path starts with '/'");
            }
            String[] words = line.split("\\s+");
            if (words.length < 2) {
                throw new IllegalArgumentException(name + ": no client given (e.g. '" + words[0] + " 127.0.0.1(rw)')");
            }
            long parsed;
            try {
                parsed = new ExportFile(new StringReader(line)).exports().count();
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException(name + ": " + e.getMessage());
            }
            if (parsed != words.length - 1) {
                throw new IllegalArgumentException(name + ": nfs4j refused " + (words.length - 1 - parsed)
                        + " of its client entries (an unknown option or client; nfs4j's message names it)");
            }
            Path directory = realRoot.resolve(words[0].substring(1)).normalize();
            try {
                if (!directory.startsWith(realRoot) || !Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)
                        || !directory.toRealPath().equals(directory)) {
                    throw new IllegalArgumentException(name + ": " + directory
                            + " is not a directory inside the root (or is reached through a symbolic link)");
                }
            } catch (IOException e) {
                throw new IllegalArgumentException(name + ": " + directory + " cannot be read (" + e + ")");
            }
            all.append(line).append('\n');
        }
        try {
            return new ExportFile(new StringReader(all.toString()));
        } catch (IOException e) {
            throw new IllegalArgumentException("exports: " + e.getMessage());
        }
    }

    /**
     * Serves other exports from the next call on, keeping nfs4j and its NFSv4 state.
     *
     * @throws IllegalArgumentException naming the line, and nothing changed, when one is invalid
     */
    public void replaceExports(List<String> lines) {
        exports.replace(parseExports(settings.root(), lines));
    }

    /** Whether a new configuration differs from this one in more than its exports. */
    public boolean needsRestartFor(Settings next) {
        return !settings.root().equals(next.root()) || !settings.stateDirectory().equals(next.stateDirectory())
                || !settings.versions().equals(next.versions()) || !settings.lease().equals(next.lease());
    }

    /** The programs to register, by program number and version. */
    public Map<OncRpcProgram, RpcDispatchable> programs() {
        return Collections.unmodifiableMap(programs);
    }

    /** The file system served. */
    public DirectoryFileSystem fileSystem() {
        return fileSystem;
    }

    /** The settings served. */
    public Settings settings() {
        return settings;
    }

    /** One line for the log: programs, root and exports. */
    public String describe() {
        StringJoiner served = new StringJoiner(", ");
        if (settings.versions().contains(Version.NFS4)) {
            served.add("NFSv4.1 (100003 v4, lease " + settings.lease().toSeconds() + " s)");
        }
        if (settings.versions().contains(Version.NFS3)) {
            served.add("NFSv3 (100003 v3)").add("MOUNT v3 (100005 v3)");
        }
        List<String> lines = new ArrayList<>();
        for (FsExport export : (Iterable<FsExport>) exports.exports()::iterator) {
            lines.add(export.toString());
        }
        return "nfs4j serves " + served + " of " + fileSystem.root() + ", exports " + lines;
    }

    @Override
    public void close() throws IOException {
        try {
            if (stateHandler != null) {
                stateHandler.shutdown();
            }
        } finally {
            try {
                clientRecords.close();
            } finally {
                fileSystem.close();
            }
        }
    }

    /**
     * countingContact() - nfs4j's NFSv4 program, telling the client records of each call, so
     * that the grace period counts from the first call a client could make ({@link
     * ClientRecoveryFile#heardFromClient}).
     */
    private static RpcDispatchable countingContact(RpcDispatchable program, ClientRecoveryFile records) {
        return new RpcDispatchable() {
            @Override
            public void dispatchOncRpcCall(org.dcache.oncrpc4j.rpc.RpcCall call)
                    throws org.dcache.oncrpc4j.rpc.OncRpcException, IOException {
                records.heardFromClient();
                program.dispatchOncRpcCall(call);
            }

            @Override
            public String toString() {
                return program.toString();
            }
        };
    }
}
