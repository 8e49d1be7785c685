package org.rpcrdma4j.registration.frmr;

import org.osgi.service.component.annotations.Component;
import org.rpcrdma4j.registration.frmr.internal.FastRegistrationSinkPool;
import org.rpcrdma4j.registration.frmr.internal.UserVerbsSinkPool;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsException;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceProvider;

/**
 * FrmrRegistrationStrategy - READ sinks under memory registrations of their own, so that no key
 * granting remote write to a sink outlives the READ it was made for.
 *
 * <p>The pool is chosen from the device's capabilities: with
 * {@link DeviceCapabilities#fastRegistration()} (kernel-style verbs), a fresh key per READ by
 * REG_MR and invalidation on the send queue; without it (user-space verbs), ibv_reg_mr of each
 * sink window: kept and reused with local write only where the peer never sees a sink's key
 * (InfiniBand, RoCE), registered per READ where it does (iWARP). See {@link UserVerbsSinkPool}.
 *
 * <p>Stateless: the same instance serves as the DS component (service property
 * {@value RegistrationStrategy#STRATEGY_NAME}={@value #NAME}) and the {@link java.util.ServiceLoader}
 * provider; safe from any thread.
 */
@Component(service = RegistrationStrategy.class, property = RegistrationStrategy.STRATEGY_NAME + "=" + FrmrRegistrationStrategy.NAME)
@ServiceProvider(value = RegistrationStrategy.class, resolution = Resolution.OPTIONAL)
public final class FrmrRegistrationStrategy implements RegistrationStrategy {
    /** The strategy's name. */
    public static final String NAME = "frmr";

    /** Creates the strategy (DS, ServiceLoader, or plain Java). */
    public FrmrRegistrationStrategy() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SinkPool createSinkPool(ProtectionDomain protectionDomain, SinkPoolParameters parameters) throws VerbsException {
        DeviceCapabilities caps = protectionDomain.device().capabilities();
        return caps.fastRegistration()
                ? FastRegistrationSinkPool.create(this, protectionDomain, parameters)
                : UserVerbsSinkPool.create(this, protectionDomain, parameters);
    }

    @Override
    public String toString() {
        return "RegistrationStrategy[" + NAME + "]";
    }
}
