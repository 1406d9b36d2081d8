-- Version 11: a counter may keep a recomputed count (aggregate 'count', aggregate_column the source's key): the number
-- of source rows that count for a key, recomputed by the rollup from the source as a min or max is. Its target key need
-- not be unique: the Hibernate integration keeps one per link of a many-to-many whose where reads the far entity, in a
-- column of the join table keyed by the link's far row (see "A where on the far entity" in the architecture).
ALTER TABLE countercache.counter DROP CONSTRAINT counter_aggregate_check;
ALTER TABLE countercache.counter ADD CONSTRAINT counter_aggregate_check
    CHECK (aggregate OPERATOR(pg_catalog.=) ANY (ARRAY['min', 'max', 'count']));
