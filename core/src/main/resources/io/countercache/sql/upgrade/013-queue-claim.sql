-- Version 13: the row that orders the claims of the queues (see "Claiming alone" in rollup_report). A round that
-- claims alone locks it FOR UPDATE; every other transaction that locks or deletes queued rows locks it FOR SHARE. A
-- row lock, not an advisory lock, so that only the library's roles can take it (locking a row needs UPDATE on it).
CREATE TABLE countercache.queue_claim (
    one boolean PRIMARY KEY DEFAULT true CHECK (one)
);
INSERT INTO countercache.queue_claim DEFAULT VALUES;
