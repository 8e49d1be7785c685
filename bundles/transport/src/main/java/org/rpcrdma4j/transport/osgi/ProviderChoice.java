package org.rpcrdma4j.transport.osgi;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * ProviderChoice - which registered verbs provider the transport serves over, and why.
 *
 * <p>A named provider ({@code loopback}, {@code disni}, ...) is taken as named. {@value #AUTO}
 * takes DiSNI when its provider is registered (it registers only where rdma-core and libdisni
 * load) and lists at least one RDMA device (it lists only devices reachable through an IPv4
 * address), else the loopback provider; the reason says which test decided.
 *
 * @param provider the provider to serve over, or null to wait for one
 * @param reason why, for the log
 */
record ProviderChoice(VerbsProvider provider, String reason) {
    /** The {@code provider} value that chooses at run time. */
    static final String AUTO = "auto";
    /** The real-RDMA provider {@value #AUTO} prefers. */
    static final String DISNI = "disni";
    /** The provider {@value #AUTO} falls back to. */
    static final String LOOPBACK = "loopback";

    /**
     * choose() - resolves the configured name against the registered providers. Asks DiSNI for
     * its devices (a probe of the local addresses), so not for a hot path.
     *
     * @param configured the {@code provider} setting
     * @param providers the registered providers by name
     * @return the choice; its provider is null when the one wanted is not registered (yet)
     */
    static ProviderChoice choose(String configured, Map<String, VerbsProvider> providers) {
        if (!AUTO.equals(configured)) {
            VerbsProvider named = providers.get(configured);
            return new ProviderChoice(named, named != null ? "configured" : "verbs provider '" + configured
                    + "' is not registered (present: " + providers.keySet() + ")");
        }
        VerbsProvider disni = providers.get(DISNI);
        String whyNotDisni;
        if (disni == null) {
            whyNotDisni = "no DiSNI provider is registered (feature rpcrdma4j-verbs-disni not installed, or it refused to "
                    + "start: see its log line)";
        } else {
            try {
                List<VerbsDevice> devices = disni.devices();
                if (!devices.isEmpty()) {
                    return new ProviderChoice(disni, "DiSNI sees RDMA device(s) with an IPv4 address: "
                            + devices.stream().map(VerbsDevice::name).collect(Collectors.joining(", ")));
                }
                whyNotDisni = "DiSNI sees no RDMA device with an IPv4 address";
            } catch (VerbsException | RuntimeException e) {
                whyNotDisni = "DiSNI cannot list the RDMA devices (" + e.getMessage() + ")";
            }
        }
        VerbsProvider loopback = providers.get(LOOPBACK);
        return new ProviderChoice(loopback, whyNotDisni + (loopback != null ? "" : "; the loopback provider is not registered (yet)"));
    }

    /** @return the chosen provider's name, or null */
    String name() {
        return provider == null ? null : provider.name();
    }
}
