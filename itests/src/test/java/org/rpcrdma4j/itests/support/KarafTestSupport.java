package org.rpcrdma4j.itests.support;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.ops4j.pax.exam.CoreOptions.maven;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.configureConsole;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.features;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.karafDistributionConfiguration;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.keepRuntimeFolder;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.logLevel;

import java.io.File;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.inject.Inject;
import org.apache.karaf.features.BootFinished;
import org.apache.karaf.features.FeaturesService;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.karaf.options.LogLevelOption.LogLevel;
import org.ops4j.pax.exam.options.MavenArtifactUrlReference;
import org.ops4j.pax.exam.options.MavenUrlReference;
import org.ops4j.pax.exam.util.Filter;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * Base of every Pax Exam test that runs inside a real Karaf: boots the stock Apache Karaf
 * distribution offline (bundles come from its own {@code system/} folder and the local Maven
 * repository only), adds the rpcrdma4j feature repository, and offers the helpers the tests
 * share: installing features, finding bundles, asserting their state.
 *
 * <p>Subclasses are JUnit 4 tests run by {@code PaxExam} with a per-class reactor.
 */
public abstract class KarafTestSupport {

    /** Prefix of every bundle symbolic name and feature name of this project. */
    public static final String PROJECT_PREFIX = "org.rpcrdma4j";

    @Inject
    protected BundleContext bundleContext;

    @Inject
    protected FeaturesService featuresService;

    /**
     * Karaf registers this once it has installed and started the boot features. Pax Exam starts
     * the probe as soon as the framework runs, while the boot features may still be installed,
     * resolved and started: CI once saw FrmrFallbackIT's first oncrpc4j class fail the probe's
     * dynamic import (ClassNotFoundException for RpcDispatchable) although the transport was
     * already serving. Injecting it makes every test start after the boot.
     */
    @Inject
    @Filter(timeout = BOOT_TIMEOUT_MILLIS)
    protected BootFinished bootFinished;

    /** Bound on the container's boot, generous for a CI machine with two cores. */
    private static final long BOOT_TIMEOUT_MILLIS = 300_000;

    @Configuration
    public Option[] config() {
        List<Option> options = new ArrayList<>(List.of(baseOptions()));
        options.add(features(featureRepository(), bootFeatures()));
        options.addAll(List.of(extraOptions()));
        return options.toArray(new Option[0]);
    }

    /**
     * Features of ours installed when the container boots, before the test probe resolves:
     * a test whose classes use types from a feature's bundles (oncrpc4j, for one) needs them
     * there from the start. None by default; tests then install features themselves.
     */
    protected String[] bootFeatures() {
        return new String[0];
    }

    /** Options a test class adds to the base configuration (none by default). */
    protected Option[] extraOptions() {
        return new Option[0];
    }

    private static Option[] baseOptions() {
        String localRepository = System.getProperty("maven.repo.local",
                System.getProperty("user.home") + "/.m2/repository");
        MavenArtifactUrlReference karaf = maven().groupId("org.apache.karaf").artifactId("apache-karaf")
                .type("tar.gz").version(requiredProperty("karaf.version"));
        return new Option[] {
            karafDistributionConfiguration().frameworkUrl(karaf)
                    .unpackDirectory(new File("target/exam")).useDeployFolder(false),
            keepRuntimeFolder(),
            configureConsole().ignoreLocalConsole().ignoreRemoteShell(),
            logLevel(LogLevel.INFO),
            // Offline: never reach for a remote repository from inside the container.
            editConfigurationFilePut("etc/org.ops4j.pax.url.mvn.cfg",
                    "org.ops4j.pax.url.mvn.localRepository", localRepository),
            editConfigurationFilePut("etc/org.ops4j.pax.url.mvn.cfg", "org.ops4j.pax.url.mvn.repositories", ""),
            // The probe runs inside the container: hand it the version under test.
            systemProperty("project.version").value(requiredProperty("project.version")),
        };
    }

    /** The {@code mvn:} URL of this build's feature repository. */
    public static MavenUrlReference featureRepository() {
        return maven().groupId("org.rpcrdma4j").artifactId("rpcrdma4j-features")
                .type("xml").classifier("features").version(requiredProperty("project.version"));
    }

    /** Installs a feature of this build's repository, failing the test on any resolution error. */
    protected void installFeature(String name) throws Exception {
        featuresService.installFeature(name, requiredProperty("project.version"),
                EnumSet.of(FeaturesService.Option.NoAutoRefreshBundles));
        assertNotNull("feature " + name + " installed",
                featuresService.getFeature(name, requiredProperty("project.version")));
    }

    /** The installed bundle with this symbolic name, or a test failure naming it. */
    protected Bundle bundle(String symbolicName) {
        for (Bundle bundle : bundleContext.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError("no installed bundle " + symbolicName);
    }

    /** Asserts that the bundle is ACTIVE, with its symbolic name and state in the message. */
    protected void assertActive(String symbolicName) {
        Bundle bundle = bundle(symbolicName);
        assertEquals(symbolicName + " state (32 = ACTIVE)", Bundle.ACTIVE, bundle.getState());
    }

    /**
     * Waits up to {@code seconds} for a service of this type that satisfies {@code ready},
     * polling the registry; fails the test naming the type when none appears.
     */
    protected <T> T awaitService(Class<T> type, Predicate<T> ready, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            for (ServiceReference<T> reference : serviceReferences(type)) {
                T service = bundleContext.getService(reference);
                if (service != null && ready.test(service)) {
                    return service;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no ready " + type.getName() + " service after " + seconds + " s");
    }

    private <T> Collection<ServiceReference<T>> serviceReferences(Class<T> type) {
        try {
            return bundleContext.getServiceReferences(type, null);
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalStateException("system property " + name + " is not set (run through Maven failsafe)");
        }
        return value;
    }
}
