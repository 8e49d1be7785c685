package org.rpcrdma4j.itests.features;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.karaf.features.Feature;
import org.apache.karaf.features.Repository;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleWiring;
import org.rpcrdma4j.itests.support.KarafTestSupport;

/**
 * Every feature of the rpcrdma4j repository installs in a stock Karaf, and every bundle of
 * ours it brings ends ACTIVE (a fragment: RESOLVED) with its API packages exported. The DiSNI
 * feature installs here too; what it needs beyond a stock Karaf is tested in DisniFeatureIT.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class FeatureRepositoryIT extends KarafTestSupport {

    @Test
    public void everyFeatureInstallsAndItsBundlesAreActive() throws Exception {
        List<String> ours = new ArrayList<>();
        for (Repository repository : featuresService.listRepositories()) {
            if (!repository.getName().startsWith("rpcrdma4j-")) {
                continue;
            }
            for (Feature feature : repository.getFeatures()) {
                ours.add(feature.getName());
            }
        }
        assertFalse("the rpcrdma4j feature repository was added and lists features", ours.isEmpty());
        for (String feature : ours) {
            installFeature(feature);
        }
        int checked = 0;
        for (Bundle bundle : bundleContext.getBundles()) {
            String name = bundle.getSymbolicName();
            if (name != null && name.startsWith(PROJECT_PREFIX)) {
                if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) != null) {
                    // A fragment (libdisni.so for DiSNI) is never ACTIVE: RESOLVED means attached to its host.
                    assertEquals(name + " state (4 = RESOLVED)", Bundle.RESOLVED, bundle.getState());
                } else {
                    assertActive(name);
                }
                checked++;
            }
        }
        assertTrue("at least the codec and verbs bundles were installed, found " + checked, checked >= 2);
    }

    @Test
    public void apiBundlesExportTheirPackages() throws Exception {
        installFeature("rpcrdma4j-codec");
        installFeature("rpcrdma4j-verbs");
        assertExports("org.rpcrdma4j.codec", "org.rpcrdma4j.codec");
        assertExports("org.rpcrdma4j.verbs", "org.rpcrdma4j.verbs");
    }

    private void assertExports(String symbolicName, String packageName) {
        BundleWiring wiring = bundle(symbolicName).adapt(BundleWiring.class);
        List<String> exported = new ArrayList<>();
        for (BundleCapability capability : wiring.getCapabilities("osgi.wiring.package")) {
            exported.add((String) capability.getAttributes().get("osgi.wiring.package"));
        }
        assertEquals(symbolicName + " exports", true, exported.contains(packageName));
    }
}
