package org.rpcrdma4j.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** BenchFiles - the benchmarks' scratch directories. */
public final class BenchFiles {
    private BenchFiles() {
    }

    /** deleteTree() - removes {@code directory} and everything under it, deepest first. */
    public static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> all = Files.walk(directory)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
