package org.rpcrdma4j.binding.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;

/** The binding is found per program: ServiceLoader (descriptor written by bnd) and the DS component's service property. */
class NfsBindingDiscoveryTest {

    @Test
    void serviceLoaderFindsTheNfsBinding() {
        List<UpperLayerBinding> nfs = ServiceLoader.load(UpperLayerBinding.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(b -> b instanceof NfsUpperLayerBinding)
                .collect(Collectors.toList());
        assertEquals(1, nfs.size());
        assertEquals(100003, nfs.get(0).program());
    }

    @Test
    void theComponentIsAnUpperLayerBindingServiceWithTheProgramProperty() throws IOException {
        String descriptor;
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("OSGI-INF/" + NfsUpperLayerBinding.class.getName() + ".xml")) {
            assertNotNull(in, "bnd wrote the DS descriptor");
            descriptor = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(descriptor.contains("<property name=\"" + UpperLayerBinding.PROGRAM + "\" type=\"Integer\" value=\"100003\"/>"),
                descriptor);
        assertTrue(descriptor.contains("<provide interface=\"" + UpperLayerBinding.class.getName() + "\"/>"), descriptor);
    }

    @Test
    void onlyNfs3ReadAndReadlinkAndNfs4CompoundRepliesAreEligible() {
        NfsUpperLayerBinding binding = new NfsUpperLayerBinding();
        for (int version = 0; version <= 5; version++) {
            for (int procedure = 0; procedure <= 22; procedure++) {
                boolean expected = version == 3 && (procedure == 5 || procedure == 6)
                        || version == 4 && procedure == 1;
                assertEquals(expected, binding.isDdpEligibleReply(version, procedure), "v" + version + " proc " + procedure);
            }
        }
    }
}
