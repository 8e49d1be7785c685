package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * DisniAvailability - whether DiSNI can run in this JVM at all: libdisni loads (which needs
 * rdma-core's libibverbs and librdmacm on the host, and the library in the rpcrdma4j-disni-native
 * fragment), and DiSNI can read direct-buffer addresses (sun.nio.ch reachable). The DS component
 * asks once, before it registers the provider, so that a host without rdma-core gets one log line
 * instead of a provider that fails every call.
 *
 * <p>A host with rdma-core but without an RDMA device is available: the provider then lists no
 * device, and {@code provider = auto} picks another provider.
 */
final class DisniAvailability {
    private DisniAvailability() {
    }

    /**
     * unavailableReason() - load libdisni (once per class loader) and check direct-buffer access.
     *
     * @return null when DiSNI can run here, else one sentence saying why not and what fixes it
     */
    static String unavailableReason() {
        try {
            DisniExtensions.deviceNames();
        } catch (IOException e) {
            // The library loaded; the kernel answered (no verbs support is ENOSYS): available.
        } catch (LinkageError e) {
            return describeLoadFailure(e);
        }
        try {
            DisniProvider.checkDirectBufferAccess();
        } catch (VerbsException e) {
            return e.getMessage();
        }
        return null;
    }

    /**
     * describeLoadFailure() - names the missing piece from the loader's error: rdma-core's
     * libraries, or libdisni itself.
     *
     * @param e what loading libdisni threw (an ExceptionInInitializerError or UnsatisfiedLinkError)
     * @return the reason, with the fix
     */
    static String describeLoadFailure(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String detail = String.valueOf(cause.getMessage());
        if (detail.contains("libibverbs") || detail.contains("librdmacm")) {
            return "rdma-core is not installed (" + detail + "); install rdma-core and ibverbs-providers "
                    + "(libibverbs1, librdmacm1) to serve over RDMA";
        }
        if (detail.startsWith("no disni in java.library.path")) {
            return "libdisni not loadable: the rpcrdma4j-disni-native fragment carries no libdisni.so (it is built only where "
                    + "libibverbs-dev and librdmacm-dev are installed)";
        }
        if (cause instanceof NoClassDefFoundError || detail.contains("disni")) {
            return "libdisni not loadable (" + cause + "); the rpcrdma4j-disni-native fragment carries libdisni.so only "
                    + "when it was built where libibverbs-dev and librdmacm-dev were installed";
        }
        return "libdisni not loadable (" + cause + ")";
    }
}
