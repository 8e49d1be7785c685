package org.rpcrdma4j.transport.conformance;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * PrepareRefusingStrategy - a real strategy whose sinks refuse to prepare their READ (as a
 * strategy does when a registration fails): the local failure a call with read chunks can meet
 * after it was planned. Everything else is the real strategy's.
 */
final class PrepareRefusingStrategy implements RegistrationStrategy {
    private final RegistrationStrategy real;

    PrepareRefusingStrategy(RegistrationStrategy real) {
        this.real = real;
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public SinkPool createSinkPool(ProtectionDomain protectionDomain, SinkPoolParameters parameters) throws VerbsException {
        SinkPool pool = real.createSinkPool(protectionDomain, parameters);
        return new SinkPool() {
            @Override
            public RegistrationStrategy strategy() {
                return PrepareRefusingStrategy.this;
            }

            @Override
            public int sinkLength() {
                return pool.sinkLength();
            }

            @Override
            public ReadSink allocate() {
                ReadSink sink = pool.allocate();
                return sink == null ? null : refusing(sink, this);
            }

            @Override
            public int outstanding() {
                return pool.outstanding();
            }

            @Override
            public int capacity() {
                return pool.capacity();
            }

            @Override
            public int liveRegistrations() {
                return pool.liveRegistrations();
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }

    private static ReadSink refusing(ReadSink sink, SinkPool pool) {
        return new ReadSink() {
            @Override
            public SinkPool pool() {
                return pool;
            }

            @Override
            public boolean prepareRead(ReadRequestChain chain, int length, long remoteAddress, int rkey) {
                return false;
            }

            @Override
            public void readCompleted(boolean success) {
                sink.readCompleted(success);
            }

            @Override
            public ByteBuffer data() {
                return sink.data();
            }

            @Override
            public void free() {
                sink.free();
            }
        };
    }
}
