package org.rpcrdma4j.verbs.disni;

import java.io.File;
import org.rpcrdma4j.disni.ext.DisniExtensions;

/** What the DiSNI tests check about the machine before they run. */
final class DisniTestSupport {
    /** The kernel's verbs device class, which libibverbs enumerates. */
    static final String VERBS_CLASS = "/sys/class/infiniband_verbs";
    /** Why device tests skip here. */
    static final String NO_DEVICE = "no RDMA device: ibv_get_device_list returned none (runs in the soft-RDMA lab guest with rxe)";

    private DisniTestSupport() {
    }

    /** @return null when libdisni loads through DiSNI (version checked), else the reason it does not */
    static String whyLibdisniIsNotLoadable() {
        try {
            Class.forName(DisniExtensions.class.getName(), true, DisniTestSupport.class.getClassLoader());
            return null;
        } catch (ClassNotFoundException | LinkageError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return cause + " (java.library.path=" + System.getProperty("java.library.path")
                    + "; built by bundles/disni-native when libibverbs-dev and librdmacm-dev are installed)";
        }
    }

    /** @return whether the kernel lists a user-space verbs device */
    static boolean hasVerbsDevice() {
        String[] entries = new File(VERBS_CLASS).list((dir, name) -> name.startsWith("uverbs"));
        return entries != null && entries.length > 0;
    }
}
