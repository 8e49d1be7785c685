package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The credit arithmetic on its own. */
class CreditWindowTest {

    @Test
    void startsAtOneAndFollowsEachGrant() {
        CreditWindow w = new CreditWindow(4, true);
        assertTrue(w.mayPost());
        w.onPost();
        assertFalse(w.mayPost(), "one credit before any grant");
        w.onRetire();
        w.onGrant(3);
        w.onPost();
        w.onPost();
        w.onPost();
        assertFalse(w.mayPost());
        assertEquals(3, w.highWater());
        w.onRetire();
        w.onGrant(1);
        assertFalse(w.mayPost(), "2 outstanding over a grant of 1");
    }

    @Test
    void clampsGrantsToOneAndToTheReceivesPosted() {
        CreditWindow w = new CreditWindow(4, true);
        w.onGrant(0);
        assertEquals(1, w.granted());
        w.onGrant(100);
        assertEquals(4, w.granted());
        w.onGrant(0xffffffff);
        assertEquals(4, w.granted(), "an XDR unsigned int, not -1");
    }

    @Test
    void anAnswersCreditReturnsOnlyOnceItsReceiveIsPostedAgain() {
        CreditWindow w = new CreditWindow(4, true);
        w.onPost();
        w.onAnswered();
        w.onGrant(2);
        w.onPost();
        w.onPost();
        assertFalse(w.mayPost(), "the grant is used up");
        w.onAnswered();
        assertFalse(w.mayPost(), "the reply's receive is not posted again yet: the server would meet RNR");
        w.onReceivesReposted();
        assertTrue(w.mayPost(), "reposted: the credit is free");
        w.onPost();
        w.onRetire(); // a call that expected no reply took no receive
        assertTrue(w.mayPost());
    }

    @Test
    void notEnforcedStillStopsAtTheReceivesPosted() {
        CreditWindow w = new CreditWindow(2, false);
        w.onPost();
        assertTrue(w.mayPost());
        w.onPost();
        assertFalse(w.mayPost());
    }
}
