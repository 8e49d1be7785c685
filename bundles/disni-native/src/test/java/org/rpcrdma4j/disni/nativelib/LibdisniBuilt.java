package org.rpcrdma4j.disni.nativelib;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips a test class, with the reason the build recorded, when the build skipped libdisni (no
 * rdma-core headers or no gcc); it runs on any machine with libibverbs-dev and librdmacm-dev.
 */
final class LibdisniBuilt implements ExecutionCondition {
    static Path nativeDir() {
        return Paths.get(System.getProperty("rpcrdma4j.native.dir", "target/native"));
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Path dir = nativeDir();
        if (Files.isRegularFile(dir.resolve("libdisni.so"))) {
            return ConditionEvaluationResult.enabled("libdisni.so was built");
        }
        String record;
        try {
            record = Files.readString(dir.resolve("native.bnd")).trim();
        } catch (IOException e) {
            record = "no record in " + dir + " (" + e + ")";
        }
        return ConditionEvaluationResult.disabled("libdisni not built, runs where libibverbs-dev and librdmacm-dev are installed: " + record);
    }
}
