package org.rpcrdma4j.transport.internal.read;

import org.rpcrdma4j.codec.ParsedHeader;

/**
 * ReadingCall - a received call whose read chunks the READ engine pulls, as the engine sees it:
 * the header its read list was decoded into and the plan of its READs. The receive path's
 * receive contexts implement it; the READ engine plans it ({@link ReadPlanner}), schedules it
 * ({@link ReadScheduler}) and hands it back through the scheduler's
 * {@link ReadScheduler.Listener} once its READs are done.
 *
 * <p>Threading: the owning connection's completion loop (or a worker holding the connection's
 * send lock).
 */
public interface ReadingCall {

    /** @return the call's header, decoded OK, with its read list */
    ParsedHeader header();

    /** @return the plan of the call's READs, built by {@link ReadPlanner} */
    ReadPlan readPlan();
}
