package org.rpcrdma4j.nfs3.internal;

import org.rpcrdma4j.nfs3.Nfs3;

/**
 * ProcedureTable - the NFSv3 procedures by number, each with the shape of its failure result.
 */
public final class ProcedureTable {

    /**
     * One entry: how a procedure fails without attributes, how it decodes and runs, and
     * whether it takes names away from objects (REMOVE, RMDIR, RENAME), which it MUST do
     * with the namespace lock held exclusively ({@link NfsState#namespace()}).
     */
    public record Entry(FailureArm failureArm, Procedure procedure, boolean unbindsNames) {
    }

    private final Entry[] entries = new Entry[Nfs3.procedureCount()];

    /** Registers a procedure that only adds names or uses them; each number at most once. */
    public void add(int number, FailureArm failureArm, Procedure procedure) {
        put(number, new Entry(failureArm, procedure, false));
    }

    /** Registers a procedure that removes or moves names (REMOVE, RMDIR, RENAME). */
    public void addUnbinding(int number, FailureArm failureArm, Procedure procedure) {
        put(number, new Entry(failureArm, procedure, true));
    }

    private void put(int number, Entry entry) {
        if (entries[number] != null) {
            throw new IllegalStateException(Nfs3.procedureName(number) + " registered twice");
        }
        entries[number] = entry;
    }

    /** The entry of a procedure, or null for NULL and unknown numbers. */
    public Entry get(int number) {
        return number > 0 && number < entries.length ? entries[number] : null;
    }

    /** The table of every NFSv3 procedure but NULL. */
    public static ProcedureTable nfs3() {
        ProcedureTable table = new ProcedureTable();
        AttributeProcedures.register(table);
        NamespaceProcedures.register(table);
        DataProcedures.register(table);
        ListingProcedures.register(table);
        for (int i = 1; i < table.entries.length; i++) {
            if (table.entries[i] == null) {
                throw new IllegalStateException(Nfs3.procedureName(i) + " has no handler");
            }
        }
        return table;
    }
}
