package org.rpcrdma4j.shell;

import java.io.PrintStream;
import java.time.Duration;

/**
 * OutputWatch - stops a long-running command whose session's output is gone: Karaf runs a
 * command of {@code bin/client} (and so of {@code bin/rpcrdma-console}) on a thread of its own
 * and goes on running it when the ssh connection closes, e.g. when the client's time limit killed
 * it. Every period the watch flushes the session's output; once that fails
 * ({@link PrintStream#checkError()}) it interrupts the command's thread, which the commands
 * already treat as Ctrl-C.
 *
 * <p>Ownership: the caller MUST close the watch when the command ends; closing stops its thread.
 */
final class OutputWatch implements AutoCloseable {
    private final Thread watcher;
    private volatile boolean tripped;

    private OutputWatch(PrintStream output, Thread command, Duration period) {
        watcher = new Thread(() -> watch(output, command, period.toMillis()), "rpcrdma-output-watch");
        watcher.setDaemon(true);
    }

    /**
     * start() - watches {@code output} for the calling thread.
     *
     * @param output the session's own output stream (not {@code System.out}, which Karaf routes
     *     per thread), or null to watch nothing
     * @param period how often to probe
     * @return the running watch
     */
    static OutputWatch start(PrintStream output, Duration period) {
        OutputWatch watch = new OutputWatch(output, Thread.currentThread(), period);
        if (output != null) {
            watch.watcher.start();
        }
        return watch;
    }

    /** @return true when the output was found gone and the command interrupted */
    boolean tripped() {
        return tripped;
    }

    private void watch(PrintStream output, Thread command, long periodMillis) {
        try {
            while (true) {
                Thread.sleep(periodMillis);
                output.flush();
                if (output.checkError()) {
                    tripped = true;
                    command.interrupt();
                    return;
                }
            }
        } catch (InterruptedException closed) {
            // close(): the command ended
        }
    }

    @Override
    public void close() {
        watcher.interrupt();
    }
}
