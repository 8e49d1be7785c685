package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.Counter;

/**
 * TransportsVerboseTest - {@code rpcrdma:transports -v} adds each RPC-over-RDMA transport's
 * non-zero counters (its completion loops' included), which the lab reads per call (issue #33).
 */
class TransportsVerboseTest {

    private static String run(TransportsCommand command) throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            command.execute();
        } finally {
            System.setOut(out);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private static TransportsCommand command(Fakes.Control control, boolean verbose) throws ReflectiveOperationException {
        TransportsCommand command = new TransportsCommand();
        Fakes.inject(command, "controls", List.of(control));
        Fakes.inject(command, "verbose", verbose);
        return command;
    }

    @Test
    void verboseListsTheTransportsNonZeroCountersAndPlainDoesNot() throws Exception {
        Fakes.Control control = new Fakes.Control();
        control.statistics.set(Counter.CALLS_RUN_ON_LOOP, 40).set(Counter.LOOP_SLEEPS, 12).set(Counter.READS, 0);
        String text = run(command(control, true));
        assertTrue(text.contains("rdma: every counter that is not zero, since the transport started"), text);
        assertEquals(List.of("CALLS_RUN_ON_LOOP", "40"), Fakes.cells(Fakes.line(text, "CALLS_RUN_ON_LOOP")));
        assertEquals(List.of("LOOP_SLEEPS", "12"), Fakes.cells(Fakes.line(text, "LOOP_SLEEPS")));
        assertTrue(text.lines().noneMatch(l -> l.strip().startsWith("READS")), "a zero counter is left out:\n" + text);
        String plain = run(command(control, false));
        assertFalse(plain.contains("CALLS_RUN_ON_LOOP"), plain);
    }
}
