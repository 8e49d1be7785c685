package org.rpcrdma4j.registration.lkey;

import org.osgi.service.component.annotations.Component;
import org.rpcrdma4j.registration.lkey.internal.SlabSinkPool;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsException;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceProvider;

/**
 * LkeyRegistrationStrategy - sinks from a slab registered once, under one lkey (InfiniBand,
 * RoCE), or registered window by window for each READ (iWARP).
 *
 * <p>InfiniBand and RoCE: a READ names its sink with one SGE under the slab's lkey (the slab is
 * one contiguous registration, so a sink of {@link SinkPoolParameters#maxSinkLength()} bytes
 * needs no more); the slab grants LOCAL_WRITE only, so no peer can write it. iWARP: every RDMA Read Request hands the sink's STag
 * and offset to the peer, and the sink must grant REMOTE_WRITE; a slab registered for its
 * lifetime would let one client overwrite another's call data, so there each sink window is
 * registered for one READ and deregistered when it completes (one registration per READ, as
 * Linux's rw API does on iWARP; the {@code frmr} strategy with fast registration is cheaper).
 *
 * <p>Stateless: the same instance serves as the DS component (service property
 * {@value RegistrationStrategy#STRATEGY_NAME}={@value #NAME}) and the {@link java.util.ServiceLoader}
 * provider; safe from any thread.
 */
@Component(service = RegistrationStrategy.class, property = RegistrationStrategy.STRATEGY_NAME + "=" + LkeyRegistrationStrategy.NAME)
@ServiceProvider(value = RegistrationStrategy.class, resolution = Resolution.OPTIONAL)
public final class LkeyRegistrationStrategy implements RegistrationStrategy {
    /** The strategy's name. */
    public static final String NAME = "lkey";

    /** Creates the strategy (DS, ServiceLoader, or plain Java). */
    public LkeyRegistrationStrategy() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SinkPool createSinkPool(ProtectionDomain protectionDomain, SinkPoolParameters parameters) throws VerbsException {
        return SlabSinkPool.create(this, protectionDomain, parameters);
    }

    @Override
    public String toString() {
        return "RegistrationStrategy[" + NAME + "]";
    }
}
