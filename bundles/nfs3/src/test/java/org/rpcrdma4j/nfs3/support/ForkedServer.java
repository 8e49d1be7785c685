package org.rpcrdma4j.nfs3.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * ForkedServer - a {@link TestServer} in a JVM of its own, started under a chosen locale
 * (LANG, LANGUAGE and every LC_* removed, LC_ALL set), so tests see what a server started by
 * a service manager in the C locale does. The child prints its {@code sun.jnu.encoding} and
 * port, and stops when its standard input closes.
 */
public final class ForkedServer implements AutoCloseable {

    private final Process process;
    private final String pathEncoding;
    private final int port;
    private final Path log;

    private ForkedServer(Process process, String pathEncoding, int port, Path log) {
        this.process = process;
        this.pathEncoding = pathEncoding;
        this.port = port;
        this.log = log;
    }

    /**
     * Starts a server exporting {@code root/export} as {@code /export} with the given rule.
     *
     * @param locale the value of LC_ALL in the child, e.g. "C"
     */
    public static ForkedServer start(String locale, Path root, String rule) throws IOException {
        Path log = root.resolve("forked-server-" + locale + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                ForkedServer.class.getName(), root.toString(), rule);
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.equals("LANG") || name.equals("LANGUAGE") || name.startsWith("LC_"));
        environment.put("LC_ALL", locale);
        builder.redirectError(log.toFile());
        Process process = builder.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
            String encoding = out.readLine();
            String port = out.readLine();
            if (encoding == null || port == null || !encoding.startsWith("jnu=") || !port.startsWith("port=")) {
                throw new IOException("forked server did not start (" + encoding + ", " + port + "); its stderr: "
                        + Files.readString(log, StandardCharsets.ISO_8859_1));
            }
            return new ForkedServer(process, encoding.substring(4), Integer.parseInt(port.substring(5)), log);
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /** The child's {@code sun.jnu.encoding}: the charset its java.nio.file maps names with. */
    public String pathEncoding() {
        return pathEncoding;
    }

    /** The TCP port of both programs. */
    public int port() {
        return port;
    }

    @Override
    public void close() throws IOException {
        process.getOutputStream().close();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The child: {@code root rule}. */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]);
        try (TestServer server = TestServer.start(root.resolve("state"), TestServer.export(root, args[1]))) {
            System.out.println("jnu=" + System.getProperty("sun.jnu.encoding"));
            System.out.println("port=" + server.port());
            System.out.flush();
            while (System.in.read() >= 0) {
                // runs until the parent closes our standard input
            }
        }
        System.exit(0);
    }

    @Override
    public String toString() {
        return "forked server on port " + port + " (" + pathEncoding + ", log " + log + ")";
    }
}
