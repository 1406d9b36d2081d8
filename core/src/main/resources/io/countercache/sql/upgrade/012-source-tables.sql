-- Version 12: a counter may be fed by several tables of one schema (a JPA TABLE_PER_CLASS hierarchy: each concrete
-- class has a table of its own, with the columns the counter reads): source_table is the first, more_tables the others
-- (NULL for a counter of one table, as every counter installed before). Each table's capture serves a copy of the
-- counter on that table, under its id, and a recount reads them all (see tables_of, in capture.sql).
ALTER TABLE countercache.counter ADD COLUMN more_tables name[]
    CHECK (more_tables IS NULL OR pg_catalog.cardinality(more_tables) OPERATOR(pg_catalog.>) 0);
