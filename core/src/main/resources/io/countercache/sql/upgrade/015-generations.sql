-- Version 15: the two generations of the queue (see "Generations" in rollup_report). Writers' deltas of queue
-- counters go to the generation the clock names (countercache.generation), never to the queue itself, which keeps
-- what the library puts back (busy sums, orphans, slot amounts, recount corrections). A generation inherits the
-- queue, so every reader of countercache.delta reads it too; its ids come from the queue's sequence. A round that
-- holds a generation whole (ACCESS EXCLUSIVE, taken NOWAIT) reads it and truncates it, instead of deleting its rows
-- one by one.
CREATE TABLE countercache.delta_0 () INHERITS (countercache.delta);
CREATE TABLE countercache.delta_1 () INHERITS (countercache.delta);
ALTER TABLE countercache.delta_0
    ALTER COLUMN id SET DEFAULT pg_catalog.nextval('countercache.delta_id_seq'::pg_catalog.regclass),
    ADD PRIMARY KEY (id);
ALTER TABLE countercache.delta_1
    ALTER COLUMN id SET DEFAULT pg_catalog.nextval('countercache.delta_id_seq'::pg_catalog.regclass),
    ADD PRIMARY KEY (id);
