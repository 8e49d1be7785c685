package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** RFC 8797 connection private data, byte for byte. */
class ConnectionPrivateDataTest {

    @Test
    void encodesMagicVersionFlagsAndSizesInKibMinusOne() {
        ByteBuffer buffer = ByteBuffer.allocate(8);
        int n = new ConnectionPrivateData(4096, 1024, true).encode(buffer, 0);

        assertEquals(8, n);
        assertArrayEquals(new byte[] {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1, 1, 3, 0}, buffer.array());
    }

    @Test
    void decodesWhatLinuxSends() {
        // 256 KiB send, 4 KiB receive, no remote invalidation, padded to 56 bytes as RDMA-CM does on IB.
        byte[] bytes = Arrays.copyOf(new byte[] {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1, 0, (byte) 255, 3}, 56);
        Optional<ConnectionPrivateData> data = ConnectionPrivateData.decode(ByteBuffer.wrap(bytes), 0, 56);

        assertEquals(Optional.of(new ConnectionPrivateData(256 * 1024, 4096, false)), data);
    }

    @Test
    void roundTripsAtAnOffset() {
        ByteBuffer buffer = ByteBuffer.allocate(20);
        ConnectionPrivateData sent = new ConnectionPrivateData(8192, 65536, true);
        sent.encode(buffer, 12);
        assertEquals(Optional.of(sent), ConnectionPrivateData.decode(buffer, 12, 8));
    }

    @Test
    void foreignOrShortDataIsIgnored() {
        byte[] good = {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1, 0, 0, 0};
        assertTrue(ConnectionPrivateData.decode(ByteBuffer.wrap(good), 0, 7).isEmpty());
        byte[] wrongMagic = good.clone();
        wrongMagic[3] = 0x19;
        assertTrue(ConnectionPrivateData.decode(ByteBuffer.wrap(wrongMagic), 0, 8).isEmpty());
        byte[] wrongVersion = good.clone();
        wrongVersion[4] = 2;
        assertTrue(ConnectionPrivateData.decode(ByteBuffer.wrap(wrongVersion), 0, 8).isEmpty());
        assertTrue(ConnectionPrivateData.decode(ByteBuffer.wrap(good), 0, 8).isPresent());
    }

    @Test
    void sizesOutsideOneByteAreRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ConnectionPrivateData(512, 1024, false));
        assertTrue(e.getMessage().startsWith("maxSendSize"));
        e = assertThrows(IllegalArgumentException.class, () -> new ConnectionPrivateData(1024, 257 * 1024, false));
        assertTrue(e.getMessage().startsWith("maxReceiveSize"));
        assertEquals(0, RpcRdmaCm.encodeSize(2047));
        assertEquals(255, RpcRdmaCm.encodeSize(RpcRdmaCm.MAX_SIZE));
        assertEquals(256 * 1024, RpcRdmaCm.decodeSize(-1));
        assertThrows(BufferOverflowException.class,
                () -> new ConnectionPrivateData(1024, 1024, false).encode(ByteBuffer.allocate(10), 4));
    }
}
