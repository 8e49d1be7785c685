package org.rpcrdma4j.verbs.disni;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips a test class, with the reason, where the DiSNI provider cannot run: libdisni not loadable,
 * or no RDMA device. Evaluated before any {@code @BeforeEach}: the conformance suite's
 * {@code @AfterEach} closes the fixture unconditionally, so an assumption failing inside
 * {@code createFixture} would turn every skip into a NullPointerException there.
 */
final class RequiresRdmaDevice implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String unloadable = DisniTestSupport.whyLibdisniIsNotLoadable();
        if (unloadable != null) {
            return ConditionEvaluationResult.disabled("libdisni not loadable: " + unloadable);
        }
        if (!DisniTestSupport.hasVerbsDevice()) {
            return ConditionEvaluationResult.disabled(DisniTestSupport.NO_DEVICE);
        }
        return ConditionEvaluationResult.enabled("an RDMA device is present");
    }
}
