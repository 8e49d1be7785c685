package org.rpcrdma4j.verbs.disni;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Skips a test class, with the reason, where libdisni cannot be loaded through DiSNI. */
final class RequiresLibdisni implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String unloadable = DisniTestSupport.whyLibdisniIsNotLoadable();
        return unloadable == null ? ConditionEvaluationResult.enabled("libdisni loads")
                : ConditionEvaluationResult.disabled("libdisni not loadable: " + unloadable);
    }
}
