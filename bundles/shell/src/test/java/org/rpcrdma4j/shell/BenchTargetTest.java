package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class BenchTargetTest {
    private static final BenchTarget MOUNT_V3 = new BenchTarget(100005, 3);
    private static final BenchTarget MOUNT_V1 = new BenchTarget(100005, 1);
    private static final BenchTarget TEST_V1 = new BenchTarget(0x2000_0777, 1);

    @Test
    void propertiesAsTheHostServerReadsThem() {
        assertEquals(List.of(BenchTarget.NFS_V3), BenchTarget.fromProperties(100003, 3));
        assertEquals(List.of(BenchTarget.NFS_V3), BenchTarget.fromProperties("100003", " 3 "));
        assertEquals(List.of(MOUNT_V1, MOUNT_V3), BenchTarget.fromProperties(100005L, new int[] {1, 3}));
        assertEquals(List.of(MOUNT_V1, MOUNT_V3), BenchTarget.fromProperties(100005, new Integer[] {1, 3}));
        assertEquals(List.of(MOUNT_V1, MOUNT_V3), BenchTarget.fromProperties(100005, List.of("1", 3)));
        assertEquals(List.of(new BenchTarget(-1, 1)), BenchTarget.fromProperties("4294967295", 1));
    }

    @Test
    void unusablePropertiesNameNothing() {
        assertEquals(List.of(), BenchTarget.fromProperties(null, 3));
        assertEquals(List.of(), BenchTarget.fromProperties(100003, null));
        assertEquals(List.of(), BenchTarget.fromProperties("nfs", 3));
        assertEquals(List.of(), BenchTarget.fromProperties(-1, 3));
        assertEquals(List.of(), BenchTarget.fromProperties(4_294_967_296L, 3));
        assertEquals(List.of(), BenchTarget.fromProperties(100003, 3.0));
    }

    @Test
    void nfsV3IsTheDefaultWhenRegistered() {
        assertEquals(BenchTarget.NFS_V3, BenchTarget.choose(List.of(MOUNT_V3, TEST_V1, BenchTarget.NFS_V3), null, null));
    }

    @Test
    void otherwiseTheLowestProgramAtItsHighestVersion() {
        assertEquals(MOUNT_V3, BenchTarget.choose(List.of(TEST_V1, MOUNT_V1, MOUNT_V3), null, null));
        assertEquals(TEST_V1, BenchTarget.choose(List.of(TEST_V1), null, null));
    }

    @Test
    void anExplicitProgramMustBeRegistered() {
        assertEquals(MOUNT_V3, BenchTarget.choose(List.of(MOUNT_V1, MOUNT_V3, BenchTarget.NFS_V3), 100005, null));
        assertEquals(MOUNT_V1, BenchTarget.choose(List.of(MOUNT_V1, MOUNT_V3), 100005, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchTarget.choose(List.of(MOUNT_V1, TEST_V1), 100005, 3));
        assertTrue(e.getMessage().contains("100005 v3 is not registered"), e.getMessage());
        assertTrue(e.getMessage().contains("registered: 100005 v1, 536872823 v1"), e.getMessage());
    }

    @Test
    void nothingRegisteredIsRefusedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BenchTarget.choose(List.of(), null, null));
        assertTrue(e.getMessage().contains("PROG_UNAVAIL"), e.getMessage());
    }
}
