package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.util.function.Supplier;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * Procedure - one NFSv3 procedure in two phases: decoding its arguments (a failure there is
 * GARBAGE_ARGS) and running it for a request (a failure there is an nfsstat3).
 */
@FunctionalInterface
public interface Procedure {

    /**
     * Decodes the arguments.
     *
     * @return the action to run; it MUST NOT touch the decoding stream again
     * @throws IOException if the arguments are malformed
     */
    Action decode(XdrDecodingStream in) throws IOException;

    /** The execution phase of a decoded call. */
    @FunctionalInterface
    interface Action {
        /** Runs the call; NfsException and IOException become failure replies. */
        Reply run(Request request) throws NfsException, IOException;
    }

    /** A step that may fail with an nfsstat3 or a file system error. */
    @FunctionalInterface
    interface Step {
        /** Runs the step. */
        Reply run() throws NfsException, IOException;
    }

    /**
     * Runs a step so that any failure carries the given failure arm (e.g. the directory's
     * wcc_data, computed after the failure).
     *
     * @throws NfsException the failure, with the arm attached unless it already has one
     */
    static Reply attempt(Step step, Supplier<XdrBody> failureArm) throws NfsException {
        try {
            return step.run();
        } catch (NfsException e) {
            throw e.failureBody() == null ? e.withBody(failureArm.get()) : e;
        } catch (IOException e) {
            throw Errors.of(e).withBody(failureArm.get());
        } catch (InvalidPathException e) {
            // A name the platform cannot represent as a path (e.g. under a non-UTF-8 locale).
            throw new NfsException(Nfs3.NFS3ERR_INVAL, "unrepresentable name").withBody(failureArm.get());
        }
    }

    /** The failure arm "post_op_attr" carrying the given attributes. */
    static Supplier<XdrBody> postOp(FileAttributes attributes) {
        return () -> out -> Xdr3.encodePostOpAttr(out, attributes);
    }

    /** The failure arm "wcc_data" of a directory or file: attributes before, and now. */
    static Supplier<XdrBody> wcc(Target target) {
        FileAttributes before = target.attributes();
        return () -> {
            FileAttributes after = target.attributesNow();
            return out -> Xdr3.encodeWcc(out, before, after);
        };
    }
}
