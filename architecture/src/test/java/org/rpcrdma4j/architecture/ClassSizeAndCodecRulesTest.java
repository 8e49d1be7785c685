package org.rpcrdma4j.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.Source;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ClassSizeAndCodecRulesTest - two rules of issue #32 beside the dependency rules between the
 * bundles: every main class of the transport has one job and at most {@value #MAX_LINES} lines
 * (a longer one is a sign that a second job wants a class of its own), and the codec uses nothing
 * but the JDK's {@code java..} packages.
 *
 * <p>ArchUnit reads compiled classes, which know their source file's name but not its length:
 * the lines are counted in {@code bundles/transport/src/main/java}, found from the test's working
 * directory upwards. Without that tree the test fails rather than pass on nothing.
 */
class ClassSizeAndCodecRulesTest {

    /** The most lines one source file of the transport's main code may have. */
    static final int MAX_LINES = 500;
    private static final String TRANSPORT_SOURCES = "bundles/transport/src/main/java";

    private static JavaClasses classes;
    private static Path transportSources;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.rpcrdma4j.transport", "org.rpcrdma4j.codec");
        for (String present : new String[] {"org.rpcrdma4j.codec.HeaderDecoder",
                "org.rpcrdma4j.transport.internal.CompletionLoop", "org.rpcrdma4j.transport.TransportConfig"}) {
            if (!classes.contain(present)) {
                throw new IllegalStateException("ArchUnit did not import " + present + ": the rules would check nothing");
            }
        }
        transportSources = findTransportSources(Path.of("").toAbsolutePath());
    }

    /** @return {@value #TRANSPORT_SOURCES} in {@code from} or the nearest directory above it that has it */
    private static Path findTransportSources(Path from) {
        for (Path dir = from; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(TRANSPORT_SOURCES);
            if (Files.isDirectory(candidate.resolve("org/rpcrdma4j/transport"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("No " + TRANSPORT_SOURCES + " in " + from + " or above it: the line counts of the"
                + " transport's classes cannot be checked");
    }

    @Test
    void noMainClassOfTheTransportHasMoreThan500Lines() {
        classes().that().resideInAPackage("org.rpcrdma4j.transport..").and().areTopLevelClasses()
                .should(new ArchCondition<JavaClass>("have at most " + MAX_LINES + " lines in its source file") {
                    @Override
                    public void check(JavaClass c, ConditionEvents events) {
                        Optional<String> fileName = c.getSource().flatMap(Source::getFileName);
                        if (fileName.isEmpty()) {
                            events.add(SimpleConditionEvent.violated(c, c.getName() + " has no source file name"));
                            return;
                        }
                        Path file = transportSources.resolve(c.getPackageName().replace('.', '/')).resolve(fileName.get());
                        if (!Files.isRegularFile(file)) {
                            events.add(SimpleConditionEvent.violated(c, c.getName() + ": " + file + " not found"));
                            return;
                        }
                        long lines = countLines(file);
                        events.add(new SimpleConditionEvent(c, lines <= MAX_LINES,
                                c.getName() + " has " + lines + " lines (" + file.getFileName() + ")"));
                    }
                }).check(classes);
    }

    private static long countLines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The codec's classes use {@code java..} and the codec only. Its package-info files may also
     * carry the OSGi bundle annotations ({@code @Export}, {@code @Version}): bnd reads them at
     * build time, and they are not retained at run time.
     */
    @Test
    void theCodecUsesTheJdksJavaPackagesOnly() {
        classes().that().resideInAPackage("org.rpcrdma4j.codec..").and().doNotHaveSimpleName("package-info")
                .should().onlyDependOnClassesThat().resideInAnyPackage("org.rpcrdma4j.codec..", "java..")
                .as("the codec depends on java.. only (besides itself)").check(classes);
        classes().that().resideInAPackage("org.rpcrdma4j.codec..").and().haveSimpleName("package-info")
                .should().onlyDependOnClassesThat().resideInAnyPackage("org.rpcrdma4j.codec..", "java..",
                        "org.osgi.annotation.bundle..", "org.osgi.annotation.versioning..")
                .as("the codec's package-info files carry only the OSGi bundle annotations besides java..")
                .check(classes);
    }
}
