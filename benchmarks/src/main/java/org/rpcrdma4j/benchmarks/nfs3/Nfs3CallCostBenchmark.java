package org.rpcrdma4j.benchmarks.nfs3;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.benchmarks.BenchFiles;
import org.rpcrdma4j.nfs3.Export;
import org.rpcrdma4j.nfs3.ExportRule;
import org.rpcrdma4j.nfs3.internal.ExportRoot;
import org.rpcrdma4j.nfs3.internal.FileAttributes;
import org.rpcrdma4j.nfs3.internal.FileHandle;
import org.rpcrdma4j.nfs3.internal.NfsException;
import org.rpcrdma4j.nfs3.internal.NfsState;
import org.rpcrdma4j.nfs3.localfs.UnixStat;

/**
 * Nfs3CallCostBenchmark - what the NFSv3 program pays on every call before it does its work
 * (issue #33, item 3): checking the file handle (its HMAC), reading a file's attributes, and
 * both together as the handle's resolution ({@link org.rpcrdma4j.nfs3.internal.VerifiedHandles#verify} and
 * {@link ExportRoot#locate}: one attribute read and the parent's real path).
 *
 * <p>The {@code attributes*} rows compare the ways java.nio reads a file's attributes: the
 * server's ({@link UnixStat#of}: one lstat into the JDK's own structure, read field by field, as
 * this benchmark's fork opens sun.nio.fs like the Karaf assembly does), its fallback (the
 * {@code unix:} view's map with the names fattr3 needs, {@code attributesMapRoute}, and the
 * bare map, {@code attributesUnixNamed}), the same view with {@code *}, and the typed
 * {@code posix} and {@code basic} views, which lack ctime, nlink, ino, rdev and numeric
 * uid/gid, as the floor.
 *
 * <pre>./bench -f 1 -wi 3 -i 5 -prof gc Nfs3CallCost</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = UnixStat.OPEN_OPTION)
public class Nfs3CallCostBenchmark {

    private static final String UNIX_NAMED =
            "unix:mode,ino,dev,rdev,nlink,uid,gid,size,lastAccessTime,lastModifiedTime,ctime";

    private Path directory;
    private Path file;
    private NfsState state;
    private ExportRoot root;
    private byte[] handle;

    @Setup
    public void setUp() throws IOException {
        directory = Files.createTempDirectory("nfs3-cost");
        Path export = Files.createDirectory(directory.resolve("export"));
        file = Files.write(Files.createDirectory(export.resolve("dir")).resolve("file"), new byte[12345]);
        state = new NfsState(List.of(new Export("/export", export, List.of(ExportRule.parse("127.0.0.1(rw)")))),
                directory.resolve("state"));
        root = state.exports().get(0);
        handle = root.handleOf(file, FileAttributes.read(file));
    }

    @TearDown
    public void tearDown() throws IOException {
        BenchFiles.deleteTree(directory);
    }

    /** The handle check alone: a known handle of this server, its verdict remembered. */
    @Benchmark
    public FileHandle handleCheck() throws NfsException {
        return state.handles().verify(handle);
    }

    /** The handle check without the verdict cache: the HMAC of every handle. */
    @Benchmark
    public FileHandle handleCheckMac() throws NfsException {
        return FileHandle.decode(handle, state.key());
    }

    /** The handle check and the lookup of its object: what every call with a handle pays. */
    @Benchmark
    public ExportRoot.Located handleResolve() throws NfsException {
        return root.locate(state.handles().verify(handle));
    }

    /** The server's attribute read ({@link UnixStat#of}: the JDK's own structure where java.base opens it). */
    @Benchmark
    public FileAttributes attributesServer() throws IOException {
        return FileAttributes.read(file);
    }

    /** The server's attribute read where java.base does not open sun.nio.fs: the unix: view with fattr3's names. */
    @Benchmark
    public FileAttributes attributesMapRoute() throws IOException {
        return FileAttributes.of(UnixStat.fromMap(file));
    }

    /** The unix: view's map with the names fattr3 needs, nothing made of it. */
    @Benchmark
    public Map<String, Object> attributesUnixNamed() throws IOException {
        return Files.readAttributes(file, UNIX_NAMED, LinkOption.NOFOLLOW_LINKS);
    }

    /** The unix: view's map of everything. */
    @Benchmark
    public Map<String, Object> attributesUnixAll() throws IOException {
        return Files.readAttributes(file, "unix:*", LinkOption.NOFOLLOW_LINKS);
    }

    /** The typed posix view: one lstat, but no ctime, nlink, ino, rdev, numeric owner. */
    @Benchmark
    public long attributesPosix() throws IOException {
        PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return a.size() + a.lastModifiedTime().toMillis() + a.permissions().size();
    }

    /** The typed basic view: one lstat and a wrapper, the floor of any java.nio attribute read. */
    @Benchmark
    public long attributesBasic() throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return a.size() + a.lastModifiedTime().toMillis();
    }
}
