package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Whether DiSNI can run here, and the component's refusal to start the provider where it cannot
 * (one reason naming the missing piece; nothing served) versus starting it where it can.
 */
class DisniAvailabilityTest {
    @Test
    void availabilityAgreesWithWhetherLibdisniLoads() {
        String reason = DisniAvailability.unavailableReason();
        String unloadable = DisniTestSupport.whyLibdisniIsNotLoadable();
        if (unloadable == null) {
            assertNull(reason, "libdisni loads and surefire passes --add-exports: DiSNI can run");
        } else {
            assertTrue(reason != null && (reason.startsWith("libdisni not loadable") || reason.startsWith("rdma-core")),
                    String.valueOf(reason));
        }
    }

    @Test
    void aMissingRdmaCoreLibraryIsNamedWithThePackagesToInstall() {
        UnsatisfiedLinkError e = new UnsatisfiedLinkError("/tmp/libdisni.so: libibverbs.so.1: cannot open shared object file: "
                + "No such file or directory");
        String reason = DisniAvailability.describeLoadFailure(new ExceptionInInitializerError(e));
        assertTrue(reason.startsWith("rdma-core is not installed"), reason);
        assertTrue(reason.contains("libibverbs.so.1") && reason.contains("ibverbs-providers"), reason);
    }

    @Test
    void aMissingLibdisniIsNamedWithWhereItIsBuilt() {
        String reason = DisniAvailability.describeLoadFailure(
                new UnsatisfiedLinkError("no disni in java.library.path: /usr/lib"));
        assertTrue(reason.startsWith("libdisni not loadable: the rpcrdma4j-disni-native fragment carries no libdisni.so"), reason);
        assertTrue(reason.contains("libibverbs-dev"), reason);
        assertFalse(reason.contains("/usr/lib"), "the search path is left out: " + reason);
        String other = DisniAvailability.describeLoadFailure(new UnsatisfiedLinkError("/x/libdisni.so: undefined symbol: foo"));
        assertTrue(other.startsWith("libdisni not loadable (") && other.contains("undefined symbol"), other);
    }

    @Test
    void theComponentRefusesToStartWhereDisniCannotRun() {
        DisniProviderComponent component = new DisniProviderComponent(config(64), () -> "rdma-core is not installed (test)");
        component.activate(null);
        assertFalse(component.isStarted());
        VerbsException e = assertThrows(VerbsException.class, component::devices);
        assertEquals(Errno.EBADF, e.errno());
        component.deactivate(); // nothing to release: no failure
    }

    @Test
    void theComponentStartsWhereDisniCanRun() {
        DisniProviderComponent component = new DisniProviderComponent(config(64), () -> null);
        component.activate(null);
        assertTrue(component.isStarted());
        assertEquals(DisniProvider.NAME, component.name());
        component.deactivate();
        assertFalse(component.isStarted());
    }

    private static DisniProviderComponent.Config config(int maxInlineData) {
        return new DisniProviderComponent.Config() {
            @Override
            public int maxInlineData() {
                return maxInlineData;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return DisniProviderComponent.Config.class;
            }
        };
    }
}
