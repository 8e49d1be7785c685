package org.rpcrdma4j.itests.support;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.api.console.SessionFactory;

/**
 * Runs Karaf console commands from a test inside the container, as an operator would type them,
 * and hands back what they printed: standard output and standard error interleaved in one
 * text, so an assertion sees the error lines where the operator would.
 *
 * <p>Every command and its output are echoed to the container's standard output.
 *
 * <p>Each command runs in a fresh session on its own thread, bounded by a timeout; a command
 * still running then is interrupted (as Ctrl-C does) and the test fails naming it.
 */
public final class ShellCommands {

    private final SessionFactory sessionFactory;

    /** @param sessionFactory Karaf's console session factory (an injected service) */
    public ShellCommands(SessionFactory sessionFactory) {
        this.sessionFactory = sessionFactory;
    }

    /**
     * Executes one command line.
     *
     * @param command the command line, e.g. {@code "rpcrdma:transports"}
     * @param timeout the longest the command may run
     * @return everything it printed
     * @throws Exception what the command threw (ours throw a CommandException when they refuse,
     *         so that bin/client exits non-zero: {@link #refusal}), or an AssertionError on timeout
     */
    public String execute(String command, Duration timeout) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (Session session = sessionFactory.create(System.in, out, out)) {
            Future<Object> run = thread.submit(() -> session.execute(command));
            try {
                run.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                run.cancel(true);
                throw new AssertionError("'" + command + "' still running after " + timeout + "; printed so far:\n"
                        + bytes.toString(StandardCharsets.UTF_8));
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof Exception cause) {
                    throw cause;
                }
                throw e;
            }
        } finally {
            thread.shutdownNow();
        }
        out.flush();
        String printed = bytes.toString(StandardCharsets.UTF_8);
        // Echoed into the container's output (the failsafe report), to read a failure by.
        System.out.println("karaf@root()> " + command + "\n" + printed);
        return printed;
    }

    /**
     * Executes one command line that must refuse.
     *
     * @return the message of the exception it threw, what the console prints after
     *         "Error executing command: "
     * @throws AssertionError when it did not throw
     */
    public String refusal(String command, Duration timeout) throws Exception {
        String printed;
        try {
            printed = execute(command, timeout);
        } catch (AssertionError e) {
            throw e;
        } catch (Exception refused) {
            System.out.println("karaf@root()> " + command + "\nError executing command: " + refused.getMessage());
            return refused.getMessage();
        }
        throw new AssertionError("'" + command + "' did not refuse; it printed:\n" + printed);
    }
}
