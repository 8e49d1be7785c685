package org.rpcrdma4j.shell;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * Services - the services one command run looks up, released again when the run ends.
 *
 * <p>Ownership: the command creates it per execution and MUST close it (try-with-resources);
 * services handed out MUST NOT be used after that. Not thread-safe.
 */
final class Services implements AutoCloseable {
    private final BundleContext context;
    private final List<ServiceReference<?>> gotten = new ArrayList<>();

    /** @param context the command bundle's context */
    Services(BundleContext context) {
        this.context = context;
    }

    /**
     * @param <T> the service type
     * @param type the service type
     * @param filter an LDAP filter on the properties, or null
     * @return the services now registered, highest ranking first (then oldest first)
     */
    <T> List<T> get(Class<T> type, String filter) {
        List<T> services = new ArrayList<>();
        for (ServiceReference<T> ref : references(type, filter)) {
            T service = context.getService(ref);
            if (service != null) {
                gotten.add(ref);
                services.add(service);
            }
        }
        return services;
    }

    /**
     * obtainableProperties() - the properties of every service of a class that can be obtained:
     * a service whose factory fails (a DS component that cannot activate) is registered but is
     * served to nobody, so it is left out.
     *
     * @param className the service's class name (for types this bundle need not load)
     * @return the properties of every such service, highest ranking first
     */
    List<Map<String, Object>> obtainableProperties(String className) {
        List<Map<String, Object>> result = new ArrayList<>();
        try {
            ServiceReference<?>[] refs = context.getAllServiceReferences(className, null);
            if (refs != null) {
                List<ServiceReference<?>> sorted = new ArrayList<>(List.of(refs));
                sorted.sort(Comparator.<ServiceReference<?>>naturalOrder().reversed());
                for (ServiceReference<?> ref : sorted) {
                    if (!obtainable(ref)) {
                        continue;
                    }
                    Map<String, Object> props = new TreeMap<>();
                    for (String key : ref.getPropertyKeys()) {
                        props.put(key, ref.getProperty(key));
                    }
                    result.add(props);
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException("no filter was given", e);
        }
        return result;
    }

    private boolean obtainable(ServiceReference<?> ref) {
        Object service;
        try {
            service = context.getService(ref);
        } catch (RuntimeException e) {
            return false;
        }
        if (service == null) {
            return false;
        }
        gotten.add(ref);
        return true;
    }

    private <T> List<ServiceReference<T>> references(Class<T> type, String filter) {
        try {
            List<ServiceReference<T>> refs = new ArrayList<>(context.getServiceReferences(type, filter));
            refs.sort(Comparator.<ServiceReference<T>>naturalOrder().reversed());
            return refs;
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException("bad service filter " + filter + ": " + e.getMessage(), e);
        }
    }

    /** Releases every service handed out. */
    @Override
    public void close() {
        for (ServiceReference<?> ref : gotten) {
            try {
                context.ungetService(ref);
            } catch (IllegalStateException e) {
                // our bundle is stopping: the framework releases them itself
            }
        }
        gotten.clear();
    }
}
