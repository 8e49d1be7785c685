package org.rpcrdma4j.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BundleDependencyRulesTest - which bundle may use which, checked on the compiled classes of
 * every bundle (issue #32): the rules of the module map in the README, in the build rather than
 * in prose.
 *
 * <p>The layers, bottom up: the codec and the verbs contract use nothing of ours; the verbs
 * providers, the client and the raw test peer use only those; the host server uses the codec only
 * (the codec depends on {@code java.base} alone and is the one home of the RPC message header and
 * the XDR rules); the transport uses the codec, the verbs contract and the host server;
 * registration strategies and the NFS binding plug into the transport's SPI (and the codec) only;
 * the shell operates the client, server, transport and verbs APIs, with the codec for the RPC
 * header; the NFS programs use nothing of ours but the codec and their own shared local file
 * system package. No bundle reaches into another's {@code internal} packages, and the bundles form
 * no cycle. Inside the transport, the packages form no cycle either, and the internal packages are
 * layers in which each uses only the ones below it.
 */
class BundleDependencyRulesTest {

    private static final String OURS = "org.rpcrdma4j..";
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.rpcrdma4j");
        // The rules allow empty sets (nfs4j's bundle is there only with its profile): make sure
        // the rest really was imported, or every rule would pass on nothing.
        for (String present : List.of("org.rpcrdma4j.codec.HeaderDecoder",
                "org.rpcrdma4j.transport.internal.CompletionLoop", "org.rpcrdma4j.server.HostServer",
                "org.rpcrdma4j.nfs3.Nfs3Program", "org.rpcrdma4j.client.RpcRdmaClient",
                "org.rpcrdma4j.testing.rawpeer.RawPeer")) {
            if (!classes.contain(present)) {
                throw new IllegalStateException("ArchUnit did not import " + present + ": the rules would check nothing");
            }
        }
    }

    /** Classes of these packages use nothing of ours but these and the allowed ones. */
    private static ArchRule onlyUses(String layer, List<String> own, List<String> allowed) {
        String[] permitted = java.util.stream.Stream.concat(own.stream(), allowed.stream()).toArray(String[]::new);
        return noClasses().that().resideInAnyPackage(own.toArray(String[]::new))
                .should().dependOnClassesThat(new DescribedPredicate<JavaClass>(
                        "belong to another rpcrdma4j bundle than " + String.join(", ", permitted)) {
                    @Override
                    public boolean test(JavaClass target) {
                        String name = target.getPackageName();
                        if (!name.startsWith("org.rpcrdma4j")) {
                            return false;
                        }
                        for (String allowedPackage : permitted) {
                            if (com.tngtech.archunit.core.domain.PackageMatcher.of(allowedPackage).matches(name)) {
                                return false;
                            }
                        }
                        return true;
                    }
                }).as(layer + " uses only " + String.join(", ", allowed.isEmpty() ? List.of("itself") : allowed))
                .allowEmptyShould(true);
    }

    @Test
    void theCodecAndTheVerbsContractUseNothingOfOurs() {
        onlyUses("the codec", List.of("org.rpcrdma4j.codec.."), List.of()).check(classes);
        onlyUses("the verbs contract", List.of("org.rpcrdma4j.verbs"), List.of()).check(classes);
    }

    @Test
    void providersTheClientAndTheRawTestPeerUseOnlyTheVerbsContractAndTheCodec() {
        onlyUses("the loopback provider", List.of("org.rpcrdma4j.verbs.loopback.."), List.of("org.rpcrdma4j.verbs"))
                .check(classes);
        onlyUses("the DiSNI provider", List.of("org.rpcrdma4j.verbs.disni.."),
                List.of("org.rpcrdma4j.verbs", "org.rpcrdma4j.disni..")).check(classes);
        onlyUses("the client", List.of("org.rpcrdma4j.client.."), List.of("org.rpcrdma4j.codec..", "org.rpcrdma4j.verbs"))
                .check(classes);
        onlyUses("the raw test peer", List.of("org.rpcrdma4j.testing.rawpeer.."),
                List.of("org.rpcrdma4j.codec..", "org.rpcrdma4j.verbs")).check(classes);
    }

    @Test
    void theHostServerUsesOnlyTheCodec() {
        onlyUses("the host server", List.of("org.rpcrdma4j.server.."), List.of("org.rpcrdma4j.codec..")).check(classes);
    }

    @Test
    void theTransportUsesOnlyTheCodecTheVerbsContractAndTheHostServer() {
        onlyUses("the transport", List.of("org.rpcrdma4j.transport.."),
                List.of("org.rpcrdma4j.codec..", "org.rpcrdma4j.verbs", "org.rpcrdma4j.server..")).check(classes);
    }

    @Test
    void pluginsUseOnlyTheTransportSpiAndTheVerbsContract() {
        List<String> spi = List.of("org.rpcrdma4j.transport.spi..", "org.rpcrdma4j.verbs", "org.rpcrdma4j.codec..");
        onlyUses("the lkey strategy", List.of("org.rpcrdma4j.registration.lkey.."), spi).check(classes);
        onlyUses("the frmr strategy", List.of("org.rpcrdma4j.registration.frmr.."), spi).check(classes);
        onlyUses("the NFS binding", List.of("org.rpcrdma4j.binding.."), spi).check(classes);
    }

    @Test
    void theShellOperatesPublicApisOnly() {
        onlyUses("the shell", List.of("org.rpcrdma4j.shell.."), List.of("org.rpcrdma4j.client..", "org.rpcrdma4j.codec..",
                "org.rpcrdma4j.server..", "org.rpcrdma4j.transport", "org.rpcrdma4j.verbs")).check(classes);
    }

    @Test
    void theNfsProgramsUseOnlyTheCodecAndTheSharedLocalFileSystemPackage() {
        onlyUses("the NFSv3 programs", List.of("org.rpcrdma4j.nfs3.."), List.of("org.rpcrdma4j.codec..")).check(classes);
        onlyUses("the nfs4j export", List.of("org.rpcrdma4j.nfs4j.."),
                List.of("org.rpcrdma4j.codec..", "org.rpcrdma4j.nfs3.localfs")).check(classes);
    }

    @Test
    void noBundleReachesIntoAnothersInternalPackages() {
        ArchRule rule = com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes().that()
                .resideInAPackage(OURS).should(new ArchCondition<JavaClass>("use another bundle's internal packages only"
                        + " from inside that bundle") {
                    @Override
                    public void check(JavaClass origin, ConditionEvents events) {
                        origin.getDirectDependenciesFromSelf().forEach(dependency -> {
                            String target = dependency.getTargetClass().getPackageName();
                            int internal = target.indexOf(".internal");
                            if (target.startsWith("org.rpcrdma4j") && internal > 0
                                    && !origin.getPackageName().startsWith(target.substring(0, internal))) {
                                events.add(SimpleConditionEvent.violated(origin, dependency.getDescription()));
                            }
                        });
                    }
                });
        rule.check(classes);
    }

    @Test
    void theBundlesFormNoCycle() {
        slices().matching("org.rpcrdma4j.(*)..").should().beFreeOfCycles().check(classes);
    }

    /**
     * The transport's inside: its packages (API, SPI, OSGi component, oncrpc4j bridge and each
     * internal package) form no cycle.
     */
    @Test
    void theTransportsPackagesFormNoCycle() {
        slices().matching("org.rpcrdma4j.transport.(**)").should().beFreeOfCycles().check(classes);
    }

    private static final String INTERNAL = "org.rpcrdma4j.transport.internal";

    /**
     * The transport's internal packages are layers that point down: each uses only the layers
     * below it, and a layer above hands a lower one what it needs through an interface that the
     * lower layer defines. Bottom up: {@code common} (what every path shares), {@code sendto}
     * (the reply path), {@code read} (the READ engine), {@code recvfrom} (the receive path),
     * {@code backchannel} (backward calls), {@code connection} (one connection, wiring the paths
     * below) and the completion loops that own connections (the {@code internal} package itself).
     * Every internal class belongs to a layer: a new internal package fails until it is placed.
     */
    @Test
    void theTransportsInternalPackagesAreLayersThatPointDown() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("common").definedBy(INTERNAL + ".common..")
                .layer("sendto").definedBy(INTERNAL + ".sendto..")
                .layer("read").definedBy(INTERNAL + ".read..")
                .layer("recvfrom").definedBy(INTERNAL + ".recvfrom..")
                .layer("backchannel").definedBy(INTERNAL + ".backchannel..")
                .layer("connection").definedBy(INTERNAL + ".connection..")
                .layer("loops").definedBy(INTERNAL)
                .whereLayer("common").mayNotAccessAnyLayer()
                .whereLayer("sendto").mayOnlyAccessLayers("common")
                .whereLayer("read").mayOnlyAccessLayers("common", "sendto")
                .whereLayer("recvfrom").mayOnlyAccessLayers("common", "sendto", "read")
                .whereLayer("backchannel").mayOnlyAccessLayers("common", "sendto", "read", "recvfrom")
                .whereLayer("connection").mayOnlyAccessLayers("common", "sendto", "read", "recvfrom", "backchannel")
                .ensureAllClassesAreContainedInArchitectureIgnoring(
                        DescribedPredicate.not(JavaClass.Predicates.resideInAPackage(INTERNAL + "..")))
                .check(classes);
    }
}
