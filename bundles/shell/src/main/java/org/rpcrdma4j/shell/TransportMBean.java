package org.rpcrdma4j.shell;

import java.io.IOException;
import java.util.List;

import javax.management.Attribute;
import javax.management.AttributeNotFoundException;
import javax.management.InvalidAttributeValueException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanException;

import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.TransportStatistics;

/**
 * TransportMBean - one RPC-over-RDMA transport in JMX
 * ({@code org.rpcrdma4j:type=Transport,name=rdma-20049}): its counters, provider, address,
 * connection count, registered strategies, and {@code ActiveStrategy}, which is writable: setting
 * it does what {@code rpcrdma:strategy NAME} does (checks the name, writes {@code activeStrategy}
 * of PID {@code org.rpcrdma4j.transport} through Config Admin, waits until the transport uses it).
 */
final class TransportMBean extends CountersMBean {
    /** Switches the strategy as rpcrdma:strategy does; the exporter supplies it. */
    @FunctionalInterface
    interface Switcher {
        /**
         * @param strategy the strategy wanted
         * @return the line rpcrdma:strategy would print
         * @throws Exception what StrategySwitch threw
         */
        String switchTo(String strategy) throws Exception;
    }

    private final RdmaTransportControl control;
    private final Switcher switcher;

    TransportMBean(RdmaTransportControl control, Switcher switcher) {
        super(TransportMBean.class.getName(), "An RPC-over-RDMA transport: counters summed over its connections", List.of(
                new MBeanAttributeInfo("Name", "java.lang.String", "the host server's name of the transport", true, false, false),
                new MBeanAttributeInfo("Provider", "java.lang.String", "the verbs provider it serves over", true, false, false),
                new MBeanAttributeInfo("LocalAddress", "java.lang.String", "where it listens (empty when stopped)", true, false, false),
                new MBeanAttributeInfo("Connections", "int", "live connections", true, false, false),
                new MBeanAttributeInfo("Strategies", "[Ljava.lang.String;", "registered READ registration strategies, the active one first",
                        true, false, false),
                new MBeanAttributeInfo("ActiveStrategy", "java.lang.String", "the READ registration strategy in use; set it to "
                        + "switch persistently through Config Admin (as rpcrdma:strategy does)", true, true, false)));
        this.control = control;
        this.switcher = switcher;
    }

    @Override
    TransportStatistics statistics() {
        return control.statistics();
    }

    @Override
    Object extraAttribute(String name) throws AttributeNotFoundException {
        return switch (name) {
            case "Name" -> control.name();
            case "Provider" -> control.providerName();
            case "LocalAddress" -> control.localAddress() == null ? "" : ConnectionMBean.text(control.localAddress());
            case "Connections" -> control.connections().size();
            case "Strategies" -> control.strategies().toArray(new String[0]);
            case "ActiveStrategy" -> control.activeStrategy() == null ? "" : control.activeStrategy();
            default -> throw new AttributeNotFoundException("no attribute " + name);
        };
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException, InvalidAttributeValueException,
            MBeanException {
        if (!"ActiveStrategy".equals(attribute.getName())) {
            super.setAttribute(attribute);
            return;
        }
        if (!(attribute.getValue() instanceof String strategy) || strategy.isBlank()) {
            throw new InvalidAttributeValueException("ActiveStrategy must name a registered strategy: " + attribute.getValue());
        }
        try {
            switcher.switchTo(strategy.trim());
        } catch (IllegalArgumentException e) {
            throw new InvalidAttributeValueException(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MBeanException(e, "interrupted; the configuration may already name " + strategy);
        } catch (IOException | IllegalStateException e) {
            throw new MBeanException(new IllegalStateException(e.getMessage()), e.getMessage());
        } catch (Exception e) {
            throw new MBeanException(e, String.valueOf(e.getMessage()));
        }
    }
}
