package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** OutputWatchTest - a command is interrupted once its session's output is gone, and only then. */
class OutputWatchTest {
    /** An ssh channel's output: fails every write and flush once the client went away. */
    private static final class ChannelOutput extends OutputStream {
        volatile boolean gone;

        @Override
        public void write(int b) throws IOException {
            flush();
        }

        @Override
        public void flush() throws IOException {
            if (gone) {
                throw new IOException("channel closed");
            }
        }
    }

    private final ChannelOutput channel = new ChannelOutput();
    private final PrintStream session = new PrintStream(channel, true);

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void theCommandIsInterruptedWhenItsOutputIsGone() throws InterruptedException {
        try (OutputWatch watch = OutputWatch.start(session, Duration.ofMillis(5))) {
            Thread.sleep(50);
            assertFalse(watch.tripped(), "output there: the command runs on");
            channel.gone = true;
            assertThrows(InterruptedException.class, () -> Thread.sleep(10_000), "interrupted like Ctrl-C");
            assertTrue(watch.tripped());
        }
    }

    @Test
    void aClosedWatchNoLongerInterrupts() throws InterruptedException {
        OutputWatch watch = OutputWatch.start(session, Duration.ofMillis(5));
        watch.close();
        Thread.sleep(20);
        channel.gone = true;
        Thread.sleep(100);
        assertFalse(Thread.currentThread().isInterrupted());
        assertFalse(watch.tripped());
    }

    @Test
    void withoutASessionOutputNothingIsWatched() throws InterruptedException {
        try (OutputWatch watch = OutputWatch.start(null, Duration.ofMillis(5))) {
            Thread.sleep(20);
            assertFalse(watch.tripped());
        }
    }
}
