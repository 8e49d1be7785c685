package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.jupiter.api.Test;

/** The per-call lookup of the program table, over the whole unsigned range of program and version numbers. */
class ProgramTableTest {
    private static RpcDispatchable program(String name) {
        return new RpcDispatchable() {
            @Override
            public void dispatchOncRpcCall(org.dcache.oncrpc4j.rpc.RpcCall call) {
                // never called: the table only stores it
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    @Test
    void lookupFindsEveryRegisteredProgramAndVersionAndNothingElse() {
        ProgramTable table = new ProgramTable();
        RpcDispatchable nfs3 = program("nfs3");
        RpcDispatchable nfs4 = program("nfs4");
        RpcDispatchable mount = program("mount");
        RpcDispatchable high = program("high");
        table.register(new OncRpcProgram(100003, 3), nfs3);
        table.register(new OncRpcProgram(100003, 4), nfs4);
        table.register(new OncRpcProgram(100005, 3), mount);
        // numbers at and above 2^31 are negative ints: the index must still sort and find them
        table.register(new OncRpcProgram(0x8000_0001, 0xffff_ffff), high);
        assertSame(nfs3, table.lookup(100003, 3));
        assertSame(nfs4, table.lookup(100003, 4));
        assertSame(mount, table.lookup(100005, 3));
        assertSame(high, table.lookup(0x8000_0001, 0xffff_ffff));
        assertNull(table.lookup(100003, 2), "a version nobody serves");
        assertNull(table.lookup(100004, 3), "a program nobody serves");
        assertNull(table.lookup(0x8000_0001, 0), "the high program at another version");
        assertEquals(4, table.snapshot().size());
    }

    @Test
    void unregisterAndReRegisterAreSeenByTheNextLookup() {
        ProgramTable table = new ProgramTable();
        RpcDispatchable first = program("first");
        RpcDispatchable second = program("second");
        OncRpcProgram key = new OncRpcProgram(400000, 1);
        table.register(key, first);
        assertTrue(table.unregister(key, first));
        assertNull(table.lookup(400000, 1));
        table.register(key, second);
        assertSame(second, table.lookup(400000, 1));
        assertThrows(IllegalStateException.class, () -> table.register(key, first), "one (program, version), one server");
        assertSame(second, table.lookup(400000, 1), "a refused registration leaves the table as it was");
    }
}
