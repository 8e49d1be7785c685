package org.rpcrdma4j.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Defaults follow Linux's server; a bad value is rejected at once, naming the setting. */
class TransportConfigTest {
    @Test
    void defaults() {
        TransportConfig c = TransportConfig.DEFAULTS;
        assertEquals(4096, c.inlineReceiveThreshold());
        assertEquals(64, c.credits());
        assertEquals(130, c.receiveContexts(), "twice the credits, plus the back channel's");
        assertEquals(2, c.backchannelCredits(), "as Linux: 2 backward calls per connection");
        assertEquals(16, c.maxOutstandingReads());
        assertEquals(8, c.repostBatch());
        assertEquals(0, c.readSinkCount(), "0: sized by bytes, 24 MiB per loop at the strategy's sink length");
        assertEquals(24 << 20, c.replyStagingBytes(), "16 x 1 MiB replies of one client fit its share (three quarters)");
    }

    @Test
    void badValuesNameTheirSetting() {
        assertMessage("inlineReceiveThreshold", () -> TransportConfig.builder().inlineReceiveThreshold(1000));
        assertMessage("inlineReceiveThreshold", () -> TransportConfig.builder().inlineReceiveThreshold(512 * 1024));
        assertMessage("credits", () -> TransportConfig.builder().credits(0));
        assertMessage("maxOutstandingReads", () -> TransportConfig.builder().maxOutstandingReads(0));
        assertMessage("sinkPageSize", () -> TransportConfig.builder().sinkPageSize(3000));
        assertMessage("readSinkLength", () -> TransportConfig.builder().readSinkLength(4097));
        assertMessage("readSinkCount", () -> TransportConfig.builder().readSinkCount(-1));
        assertMessage("readSinkCount", () -> TransportConfig.builder().readSinkCount(65537));
        assertMessage("receiveContexts", () -> TransportConfig.builder().credits(64).receiveContexts(10).build());
        assertMessage("inlineReceiveThreshold",
                () -> TransportConfig.builder().receiveContexts(8192).inlineReceiveThreshold(256 * 1024).build());
    }

    @Test
    void repostBatchNeverExceedsCredits() {
        assertEquals(4, TransportConfig.builder().credits(4).repostBatch(8).build().repostBatch());
    }

    private static void assertMessage(String setting, Runnable r) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(setting), e.getMessage());
    }
}
