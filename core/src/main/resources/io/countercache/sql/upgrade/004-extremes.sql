-- Version 4: a counter may keep the least or greatest value of a source column (@CounterCache(min = ..., max = ...))
-- instead of a count or a sum. Writers queue a touch of the target (delta 1); the rollup recomputes each touched
-- target's extreme from the source, by an index. NULL for every counter installed before.
ALTER TABLE countercache.counter ADD COLUMN aggregate text CHECK (aggregate OPERATOR(pg_catalog.=) ANY (ARRAY['min', 'max']));
ALTER TABLE countercache.counter ADD COLUMN aggregate_column name;
ALTER TABLE countercache.counter ADD CONSTRAINT counter_aggregate_column
    CHECK ((aggregate IS NULL) OPERATOR(pg_catalog.=) (aggregate_column IS NULL));
