package org.rpcrdma4j.shell;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InvalidAttributeValueException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.ReflectionException;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportStatistics;

/**
 * CountersMBean - a read-mostly DynamicMBean over one transport's or connection's live counters:
 * one {@code long} attribute per {@link Counter}, named in CamelCase ({@code CALLS_DELIVERED}
 * becomes {@code CallsDelivered}), read at each get (nothing is copied or polled), plus the
 * attributes a subclass declares. jconsole, Jolokia and hawtio list each attribute.
 */
abstract class CountersMBean implements DynamicMBean {
    private final Map<String, Counter> counters = new LinkedHashMap<>();
    private final MBeanInfo info;

    /**
     * @param className shown as the MBean's class
     * @param description what the MBean stands for
     * @param extra the subclass's own attributes
     */
    CountersMBean(String className, String description, List<MBeanAttributeInfo> extra) {
        List<MBeanAttributeInfo> attributes = new ArrayList<>(extra);
        for (Counter c : Counter.values()) {
            String name = attributeName(c);
            counters.put(name, c);
            attributes.add(new MBeanAttributeInfo(name, "long", "counter " + c.name(), true, false, false));
        }
        info = new MBeanInfo(className, description, attributes.toArray(new MBeanAttributeInfo[0]), null,
                new MBeanOperationInfo[0], null);
    }

    /** @return CALLS_DELIVERED as CallsDelivered */
    static String attributeName(Counter counter) {
        StringBuilder name = new StringBuilder();
        for (String part : counter.name().split("_")) {
            name.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
        }
        return name.toString();
    }

    /** @return the live statistics, or null when the transport stopped */
    abstract TransportStatistics statistics();

    /**
     * @param name a non-counter attribute
     * @return its value
     * @throws AttributeNotFoundException when the subclass has no such attribute
     */
    abstract Object extraAttribute(String name) throws AttributeNotFoundException;

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        Counter c = counters.get(attribute);
        if (c == null) {
            return extraAttribute(attribute);
        }
        TransportStatistics s = statistics();
        return s == null ? 0L : s.get(c);
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException, InvalidAttributeValueException,
            MBeanException {
        throw new AttributeNotFoundException("attribute " + attribute.getName() + " is read-only or unknown");
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList list = new AttributeList();
        for (String a : attributes) {
            try {
                list.add(new Attribute(a, getAttribute(a)));
            } catch (AttributeNotFoundException | RuntimeException e) {
                // left out, as the DynamicMBean contract says
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        AttributeList set = new AttributeList();
        for (Attribute a : attributes.asList()) {
            try {
                setAttribute(a);
                set.add(a);
            } catch (Exception e) {
                // left out, as the DynamicMBean contract says
            }
        }
        return set;
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) throws ReflectionException {
        throw new ReflectionException(new NoSuchMethodException(actionName), "no operation " + actionName);
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }
}
