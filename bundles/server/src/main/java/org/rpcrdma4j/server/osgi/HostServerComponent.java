package org.rpcrdma4j.server.osgi;

import java.io.IOException;
import java.util.Map;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.server.HostServerStatistics;
import org.rpcrdma4j.server.HostedTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host server in OSGi: a whiteboard that serves every {@link RpcDispatchable} service
 * (with {@value ProgramProperties#PROGRAM} and {@value ProgramProperties#VERSION} service
 * properties) over every {@link HostedTransport} service, following both at runtime without
 * restarting.
 *
 * <p>Thin by design: the logic is {@link HostServer}, which also runs without OSGi. Its counters
 * are the component's service ({@link HostServerStatistics}), for the console and JMX.
 */
@Component(configurationPid = HostServerComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        immediate = true, service = HostServerStatistics.class)
@Designate(ocd = HostServerComponent.Config.class)
public final class HostServerComponent implements HostServerStatistics {

    /** Configuration PID: {@code etc/org.rpcrdma4j.server.cfg} in Karaf. */
    public static final String PID = "org.rpcrdma4j.server";

    private static final Logger LOG = LoggerFactory.getLogger(HostServerComponent.class);

    @ObjectClassDefinition(name = "rpcrdma4j host server",
            description = "Serves every registered oncrpc4j RpcDispatchable program over every transport present")
    public @interface Config {
        @AttributeDefinition(name = "Worker threads", min = "1", max = "1024",
                description = "Threads that run program code for calls received over RPC-over-RDMA "
                        + "(oncrpc4j's TCP service has its own). 1 to 1024.")
        int workerThreads() default HostServer.DEFAULT_WORKER_THREADS;

        @AttributeDefinition(name = "Calls queued per connection", min = "1", max = "1000000",
                description = "Calls one connection may have waiting for a worker; workers serve the "
                        + "connections' queues in turn (round-robin), so a busy connection does not hold up a "
                        + "quiet one. Beyond the bound a call is refused (dropped, logged and counted). The "
                        + "default, 8192, is the most receive contexts an RPC-over-RDMA connection can be given: "
                        + "such a connection is held back by its credits first. 1 to 1000000.")
        int maxQueuedCallsPerConnection() default HostServer.DEFAULT_MAX_QUEUED_CALLS_PER_CONNECTION;
    }

    private final HostServer host;

    @Activate
    public HostServerComponent(Config config) {
        this.host = new HostServer(config.workerThreads(), config.maxQueuedCallsPerConnection());
    }

    @Deactivate
    void deactivate() {
        host.close();
    }

    @Override
    public long dispatchedCalls() {
        return host.dispatchedCalls();
    }

    @Override
    public long failedCalls() {
        return host.failedCalls();
    }

    @Override
    public long programErrorCalls() {
        return host.programErrorCalls();
    }

    @Override
    public long malformedMessages() {
        return host.malformedMessages();
    }

    @Override
    public long callsRefusedOverConnectionBound() {
        return host.callsRefusedOverConnectionBound();
    }

    @Override
    public long workerWakeups() {
        return host.workerWakeups();
    }

    @Override
    public long callsWithKeptCredential() {
        return host.callsWithKeptCredential();
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addProgram(RpcDispatchable program, Map<String, Object> properties) {
        try {
            for (var key : ProgramProperties.programs(properties)) {
                host.addProgram(key, program);
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            LOG.error("Not serving RPC program service {}: {}", program, e.getMessage());
        }
    }

    void removeProgram(RpcDispatchable program, Map<String, Object> properties) {
        try {
            for (var key : ProgramProperties.programs(properties)) {
                host.removeProgram(key, program);
            }
        } catch (IllegalArgumentException e) {
            // It was refused when added; nothing to remove.
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addTransport(HostedTransport transport) {
        try {
            host.addTransport(transport);
        } catch (IOException | RuntimeException e) {
            LOG.error("Transport {} could not start: {}", transport.name(), e.toString());
        }
    }

    void removeTransport(HostedTransport transport) {
        host.removeTransport(transport);
    }
}
