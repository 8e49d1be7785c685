package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.apache.karaf.shell.support.CommandException;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.RdmaTransportStatus;

/**
 * CommandRefusalTest - a command that cannot do what it was asked throws a
 * {@link CommandException} (Karaf's ssh shell then ends bin/client with exit status 1, where a
 * line on standard error left it 0), saying why as the transport component does.
 */
class CommandRefusalTest {
    private static final RdmaTransportStatus REFUSED = status("not serving: configuration org.rpcrdma4j.transport refused: "
            + "credits = abc: not a whole number; the RDMA transport is not serving until it is corrected", null);

    private static RdmaTransportStatus status(String state, String refusal) {
        return RdmaTransportStatus.of(state, refusal);
    }

    @Test
    void connectionsWithoutATransportFailsSayingWhy() throws ReflectiveOperationException {
        ConnectionsCommand command = new ConnectionsCommand();
        Fakes.inject(command, "status", REFUSED);
        CommandException e = assertThrows(CommandException.class, command::execute);
        assertEquals("No RPC-over-RDMA transport is running (feature rpcrdma4j-transport, configuration PID "
                + "org.rpcrdma4j.transport): not serving: configuration org.rpcrdma4j.transport refused: credits = abc: "
                + "not a whole number; the RDMA transport is not serving until it is corrected.", e.getMessage());
    }

    @Test
    void transportsWithoutAnyTransportFails() throws ReflectiveOperationException {
        TransportsCommand command = new TransportsCommand();
        Fakes.inject(command, "transports", List.of());
        CommandException e = assertThrows(CommandException.class, command::execute);
        assertEquals(TransportListing.NO_TRANSPORT, e.getMessage());
    }

    @Test
    void withoutTheTransportBundleTheLineIsAsBefore() {
        assertEquals(TransportListing.NO_RDMA_TRANSPORT, TransportListing.noRdmaTransport(null));
        assertEquals("The last configuration was refused, the transport runs on the previous one: x",
                TransportListing.refusedWhileRunning(status("serving", "x")));
        assertEquals(null, TransportListing.refusedWhileRunning(status("serving", null)));
    }
}
