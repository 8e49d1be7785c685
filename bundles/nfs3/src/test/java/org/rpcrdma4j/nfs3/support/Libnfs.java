package org.rpcrdma4j.nfs3.support;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Libnfs - runs the command-line tools of Debian's libnfs-utils ({@code nfs-ls}, {@code nfs-cp},
 * {@code nfs-cat}) against a {@link TestServer}, with the NFS and MOUNT ports in the URL so no
 * portmapper is needed.
 */
public final class Libnfs {

    /** The Debian package providing the tools. */
    public static final String PACKAGE = "libnfs-utils";

    private static final long TIMEOUT_SECONDS = 120;

    private final int port;
    private final int uid;
    private final int gid;

    public Libnfs(int port, int uid, int gid) {
        this.port = port;
        this.uid = uid;
        this.gid = gid;
    }

    /** The absolute path of a tool on the PATH, or null. */
    public static Path find(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, tool);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** Whether nfs-ls, nfs-cp and nfs-cat are all installed. */
    public static boolean installed() {
        return find("nfs-ls") != null && find("nfs-cp") != null && find("nfs-cat") != null;
    }

    /** The URL of a path under the export {@code /export}. */
    public String url(String path) {
        return "nfs://127.0.0.1/export" + path + "?version=3&nfsport=" + port + "&mountport=" + port
                + "&uid=" + uid + "&gid=" + gid;
    }

    /**
     * The NFSv4 URL of a path of the server's pseudo file system (libnfs 4 speaks NFSv4.0; no
     * MOUNT). libnfs splits the path into an export (all but the last component) and a file, and
     * needs the export to start with '/': a file needs a directory above it.
     */
    public String urlV4(String path) {
        return "nfs://127.0.0.1" + path + "?version=4&nfsport=" + port + "&uid=" + uid + "&gid=" + gid;
    }

    /** The outcome of one run. */
    public record Result(int exitCode, byte[] stdout, String stderr) {

        /** Standard output as text. */
        public String text() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "exit " + exitCode + ", stderr: " + stderr.strip();
        }
    }

    /** Runs a tool with arguments and waits for it. */
    public Result run(String tool, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(find(tool).toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        CompletableFuture<byte[]> out = drain(process.getInputStream());
        CompletableFuture<byte[]> err = drain(process.getErrorStream());
        try {
            process.getOutputStream().close();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(tool + " did not finish in " + TIMEOUT_SECONDS + " s");
            }
            return new Result(process.exitValue(), out.get(), new String(err.get(), StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted waiting for " + tool, e);
        } catch (ExecutionException e) {
            throw new IOException("reading the output of " + tool, e);
        }
    }

    private static CompletableFuture<byte[]> drain(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (InputStream in = stream) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
