package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.RdmaTransportControl;

/** The switch against fake transports; "time" is counted in polls, never measured. */
class StrategySwitchTest {
    private final Fakes.Control transport = new Fakes.Control();
    private final List<String> written = new ArrayList<>();
    private final AtomicInteger pauses = new AtomicInteger();

    @Test
    void anUnknownNameIsRefusedBeforeTheConfigurationIsWritten() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StrategySwitch.switchTo("frmx", () -> List.of(transport), written::add, 10, pauses::incrementAndGet));
        assertEquals("no registration strategy named 'frmx'; registered: lkey, frmr", e.getMessage());
        assertEquals(List.of(), written);
        assertEquals("lkey", transport.activeStrategy());
    }

    @Test
    void withoutATransportNothingIsWritten() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> StrategySwitch.switchTo("frmr", List::of, written::add, 10, pauses::incrementAndGet));
        assertEquals(TransportListing.NO_RDMA_TRANSPORT, e.getMessage());
        assertEquals(List.of(), written);
    }

    @Test
    void theSwitchIsWrittenAndConfirmedOnceTheTransportAppliedIt() throws Exception {
        // The transport applies the configuration after the third look.
        AtomicInteger looks = new AtomicInteger();
        String line = StrategySwitch.switchTo("frmr", () -> {
            if (looks.incrementAndGet() == 4 && written.contains("frmr")) {
                transport.activateStrategy("frmr");
            }
            return List.of(transport);
        }, written::add, 10, pauses::incrementAndGet);
        assertEquals(List.of("frmr"), written);
        assertEquals("Active registration strategy: frmr (org.rpcrdma4j.transport activeStrategy=frmr)", line);
        assertEquals(2, pauses.get(), "looked after writing: applied at the third look, two pauses");
    }

    @Test
    void aSwitchNeverAppliedIsAnErrorNamingActiveAndRegistered() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> StrategySwitch.switchTo("frmr", () -> List.of(transport), written::add, 5, pauses::incrementAndGet));
        assertEquals(List.of("frmr"), written);
        assertEquals(4, pauses.get(), "five looks, four pauses between them");
        assertTrue(e.getMessage().contains("did not apply it"), e.getMessage());
        assertTrue(e.getMessage().contains("active: rdma: lkey"), e.getMessage());
        assertTrue(e.getMessage().contains("registered: lkey, frmr"), e.getMessage());
    }

    @Test
    void aTransportReplacedByANewServiceIsAskedAfresh() throws Exception {
        Fakes.Control replacement = new Fakes.Control();
        replacement.active = "frmr";
        List<List<RdmaTransportControl>> registry = new ArrayList<>(List.of(List.of(transport)));
        String line = StrategySwitch.switchTo("frmr", () -> registry.get(registry.size() - 1), s -> {
            written.add(s);
            registry.add(List.of(replacement));
        }, 3, pauses::incrementAndGet);
        assertTrue(line.startsWith("Active registration strategy: frmr"), line);
        assertEquals(0, pauses.get());
    }

    @Test
    void everyTransportMustApplyIt() {
        Fakes.Control second = new Fakes.Control();
        second.name = "rdma2";
        transport.active = "frmr";
        assertThrows(IllegalStateException.class,
                () -> StrategySwitch.switchTo("frmr", () -> List.of(transport, second), written::add, 2, pauses::incrementAndGet));
    }

    @Test
    void registeredStrategiesAreTheUnionInOrder() {
        Fakes.Control second = new Fakes.Control();
        second.strategies = new ArrayList<>(List.of("frmr", "mw"));
        assertEquals(List.of("lkey", "frmr", "mw"), StrategySwitch.registered(List.of(transport, second)));
    }

    @Test
    void theListingMarksTheActiveStrategy() {
        String text = Fakes.render(StrategySwitch.strategies(List.of(transport)));
        assertEquals(List.of("rdma", "lkey", "*"), Fakes.row(text, "rdma", "lkey"));
        assertEquals(List.of("rdma", "frmr", ""), Fakes.row(text, "rdma", "frmr"));
    }

    @Test
    void noStrategyRegisteredIsSaid() {
        transport.strategies.clear();
        transport.active = null;
        assertTrue(Fakes.render(StrategySwitch.strategies(List.of(transport))).contains("(no registration strategy is registered)"));
    }
}
