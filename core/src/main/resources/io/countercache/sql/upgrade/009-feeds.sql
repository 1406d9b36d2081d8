-- Version 9: a counter may be fed by several foreign keys of its source (@CounterCache(via = {"challenger",
-- "opponent"})): source_fk is the first, more_fks the others (NULL for a counter of one, as every counter installed
-- before). A source row counts once for each of them that points at a target (see feeds, in capture.sql).
ALTER TABLE countercache.counter ADD COLUMN more_fks name[]
    CHECK (more_fks IS NULL OR pg_catalog.cardinality(more_fks) OPERATOR(pg_catalog.>) 0);
