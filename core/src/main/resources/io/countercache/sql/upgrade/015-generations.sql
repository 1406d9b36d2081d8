-- Version 15: the two generations of the queue (see take_generation). Writers' deltas of queue
-- counters go to the generation the clock names (countercache.generation), never to the queue itself, which keeps
-- what the library puts back (busy sums, orphans, slot amounts, recount corrections). A generation inherits the
-- queue, so every reader of countercache.delta reads it too; its ids come from the queue's sequence. take_generation,
-- holding a generation whole (ACCESS EXCLUSIVE, taken NOWAIT), folds it into the queue and truncates it, instead of
-- rounds deleting its rows one by one.
CREATE TABLE countercache.delta_0 () INHERITS (countercache.delta);
CREATE TABLE countercache.delta_1 () INHERITS (countercache.delta);
ALTER TABLE countercache.delta_0
    ALTER COLUMN id SET DEFAULT pg_catalog.nextval('countercache.delta_id_seq'::pg_catalog.regclass),
    ADD PRIMARY KEY (id);
ALTER TABLE countercache.delta_1
    ALTER COLUMN id SET DEFAULT pg_catalog.nextval('countercache.delta_id_seq'::pg_catalog.regclass),
    ADD PRIMARY KEY (id);
-- A take holds a generation only when it can lock it at once, and an autovacuum of it holds it meanwhile (and,
-- never waited for, is never cancelled): no vacuum for inserts alone, nor analyze, which a table truncated every other
-- second does not need; the rows claims by rows delete still get vacuumed, without delay.
ALTER TABLE countercache.delta_0 SET (autovacuum_vacuum_insert_threshold = -1, autovacuum_analyze_threshold = 2000000000,
                                      autovacuum_vacuum_cost_delay = 0);
ALTER TABLE countercache.delta_1 SET (autovacuum_vacuum_insert_threshold = -1, autovacuum_analyze_threshold = 2000000000,
                                      autovacuum_vacuum_cost_delay = 0);
